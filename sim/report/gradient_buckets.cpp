// Gradient buckets (sim/report/gradient_buckets.h): the per-layer tables, the bucket packing and
// the overlapped step timeline.
#include "sim/report/gradient_buckets.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace fm {

// The tables, generated into the build from sim/report/data/*.csv (sim/CMakeLists.txt).
extern const char* const kResnet50Csv;
extern const char* const kBertLargeCsv;

namespace {

// A whole unsigned decimal number, else false.
bool parse_u64(const std::string& s, uint64_t* v) {
  if (s.empty() || s.size() > 19 || s.find_first_not_of("0123456789") != std::string::npos) return false;
  *v = std::stoull(s);
  return true;
}

}  // namespace

std::vector<Layer> parse_layers(const std::string& csv, const std::string& what) {
  std::vector<Layer> out;
  std::istringstream in(csv);
  std::string line;
  int n = 0;
  bool header = false;
  uint64_t params = 0, macs = 0;
  while (std::getline(in, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    const std::string where = what + " line " + std::to_string(n) + ": ";
    if (!header) {
      if (line != "layer,params,macs") throw std::invalid_argument(where + "expected the header layer,params,macs");
      header = true;
      continue;
    }
    const size_t a = line.find(','), b = a == std::string::npos ? a : line.find(',', a + 1);
    if (b == std::string::npos || line.find(',', b + 1) != std::string::npos)
      throw std::invalid_argument(where + "expected NAME,PARAMS,MACS (3 fields)");
    Layer l;
    l.name = line.substr(0, a);
    if (l.name.empty()) throw std::invalid_argument(where + "empty layer name");
    if (!parse_u64(line.substr(a + 1, b - a - 1), &l.params) || !parse_u64(line.substr(b + 1), &l.macs))
      throw std::invalid_argument(where + "PARAMS and MACS must be whole numbers >= 0");
    params += l.params;
    macs += l.macs;
    out.push_back(l);
  }
  if (!header) throw std::invalid_argument(what + ": no header layer,params,macs");
  if (params == 0 || macs == 0) throw std::invalid_argument(what + ": the rows must hold parameters and MACs (> 0 in all)");
  return out;
}

const std::vector<Layer>& resnet50_layers() {
  static const std::vector<Layer> l = parse_layers(kResnet50Csv, "resnet50_layers.csv");
  return l;
}

const std::vector<Layer>& bert_large_layers() {
  static const std::vector<Layer> l = parse_layers(kBertLargeCsv, "bert_large_layers.csv");
  return l;
}

std::vector<Bucket> make_buckets(const std::vector<Layer>& layers, double params, int elem, double compute_ms,
                                 uint64_t cap_bytes) {
  double total_params = 0, total_macs = 0;
  for (const Layer& l : layers) total_params += (double)l.params, total_macs += (double)l.macs;
  const int n = (int)layers.size();
  // Bytes per row from the cumulative parameters, so the rows add up to params x elem
  // exactly; ready time per row from the backward pass, which runs from the last row.
  const double scale = params * elem / total_params, fwd = compute_ms / 3, bwd = compute_ms - fwd;
  std::vector<uint64_t> cum(n + 1, 0);
  double c = 0;
  for (int i = 0; i < n; ++i) c += (double)layers[i].params, cum[i + 1] = (uint64_t)std::llround(c * scale);
  std::vector<double> ready(n);
  double m = 0;
  for (int i = n - 1; i >= 0; --i) {
    m += (double)layers[i].macs;
    ready[i] = fwd + bwd * (m / total_macs);
  }
  std::vector<Bucket> out;
  Bucket b;
  b.last = n - 1;
  for (int i = n - 1; i >= 0; --i) {
    b.bytes += cum[i + 1] - cum[i];
    b.first = i;
    b.ready_ms = ready[i];
    if (b.bytes >= cap_bytes || i == 0) {
      if (b.bytes > 0) out.push_back(b);
      b = Bucket();
      b.last = i - 1;
    }
  }
  return out;
}

uint64_t bucket_class(uint64_t bytes) {
  if (bytes <= 4096) return 4096;
  int e = 63 - __builtin_clzll(bytes) - 3;  // bytes / 2^e in [8, 16)
  uint64_t m = (bytes + (1ULL << e) - 1) >> e;
  if (m == 16) m = 8, ++e;
  return m << e;
}

BucketStep bucket_step(const std::vector<Bucket>& buckets, double compute_ms,
                       const std::function<double(uint64_t)>& ar_ms) {
  BucketStep s;
  double end = 0;
  for (const Bucket& b : buckets) {
    const double t = ar_ms(bucket_class(b.bytes));
    end = std::max(end, b.ready_ms) + t;
    s.comm_ms += t;
  }
  s.step_ms = std::max(compute_ms, end);
  s.exposed_ms = s.step_ms - compute_ms;
  return s;
}

}  // namespace fm
