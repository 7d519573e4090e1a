// faultmesh report paper: the headline's rows at other link latencies. A real inter-chip
// link costs tens to hundreds of ns per hop (FEC, SerDes, cable), and the schedules with
// many steps (snake's ring through every chip) pay it per step, so the answer depends on
// it; this section shows by how much, each latency with its own simulated series and
// buffers deep enough for its credit round trip (buf_for_latency).
#include <algorithm>
#include <cmath>

#include "models/config.h"
#include "sim/report/impl.h"

namespace fm::paper_report {

void Report::write_latency() {
  md << "## Link latency sensitivity\n\n";
  if (o.lat_sens.empty()) {
    md << "Not run (`--latency-sensitivity off`).\n\n";
    return;
  }
  const double ns = NetworkConfig().cycle_ns();
  std::vector<int> lats = o.lat_sens;
  if (std::find(lats.begin(), lats.end(), o.link_latency) == lats.end()) lats.push_back(o.link_latency);
  std::sort(lats.begin(), lats.end());
  md << "The headline's rows (one failed board at the centre, against the fault-free machine with ft2d) with "
     << "every run of them simulated again at each link latency (link and credit latency the same) and fitted "
     << "as above. The VC buffers stay at the report's " << buf_for_latency(o.link_latency) << " flits for shorter "
     << "links, so only the latency changes, and grow with a longer link to cover its credit round trip "
     << "(pipeline + 2 x latency + 1, rounded up to 8 flits)"
     << "; " << o.link_latency << " cycles is this report's `--link-latency`. "
     << (o.quick ? "Quick mode: the largest machine only. " : "")
     << "Each number is marked sim or fit as in the headline; \"< bound\" marks a fitted time below its schedule's "
     << "link-load bound (see the physics checks): impossible, so that row's change is not a result.\n\n"
     << "| machine | gradient | link latency | ft2d fault-free allreduce (ms) | throughput ft2d | shrink | snake | step time ft2d | source ft2d / shrink / snake |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  auto pct = [](double r) { return (r >= 1 ? "+" : "") + fmt(100 * (r - 1), 2) + " %"; };
  // A fitted time below its schedule's link-load bound (listed under the physics checks
  // too): marked where it is shown, since at long links and small fitted sizes the fit
  // misses the bandwidth term and the row would read as a real gain.
  auto below = [&](const Series& s, const Train& t, const Gradient& g) {
    return t.ok && fitted_below_bound(s, t.simulated, t.ar_ms * 1000, g.bytes());
  };
  auto src = [&](const Series& s, const Train& t, const Gradient& g) {
    return tag(t.simulated) + (below(s, t, g) ? " < bound" : "");
  };
  Json rows = Json::array();
  for (const Machine* m : latency_machines())
    for (const Gradient& g : grads)
      for (int lat : lats) {
        const int k = lat == o.link_latency ? 0 : lat;  // the report's own series carry no latency in their key
        const Series& sff = series[skey(*m, CaseId::FaultFree, "ft2d", k)];
        const Train ff = train(sff, g, o.overlap);
        Train t[3];
        const Series* ts[3];
        for (int i = 0; i < 3; ++i) {
          ts[i] = &series[skey(*m, CaseId::BoardCentre, kAlgos[i], k)];
          t[i] = train(*ts[i], g, o.overlap);
        }
        md << "| " << m->mesh() << " " << m->topo_name() << " | " << g.model << " " << g.dtype() << " | " << lat << " cycles ("
           << fmt(lat * ns, 1) << " ns)" << (k ? "" : ", default") << " | "
           << (ff.ok ? fmt(ff.ar_ms, 4) + " (" + src(sff, ff, g) + ")" : "n/a");
        Json j = {{"machine", m->name()}, {"model", g.model}, {"dtype", g.dtype()}, {"link_latency", lat},
                  {"buf", buf_for_latency(std::max(lat, o.link_latency))}};
        if (ff.ok) j["faultfree_ft2d_allreduce_ms"] = ff.ar_ms, j["faultfree_below_bound"] = below(sff, ff, g);
        for (int i = 0; i < 3; ++i) {
          const bool ok = t[i].ok && ff.ok;
          const double thr = ok ? rel_throughput(t[i], ff, m->chips()) : NAN;
          md << " | " << (ok ? pct(thr) : "n/a");
          if (ok)
            j[kAlgos[i]] = {{"throughput", thr}, {"source", tag(t[i].simulated && ff.simulated)},
                            {"below_bound", below(*ts[i], t[i], g)}};
        }
        md << " | " << (t[0].ok && ff.ok ? pct(t[0].step_ms / ff.step_ms) : "n/a") << " | ";
        for (int i = 0; i < 3; ++i) md << (i ? " / " : "") << (t[i].ok ? src(*ts[i], t[i], g) : "n/a");
        md << " |\n";
        rows.push_back(j);
      }
  md << "\n";
  // The same physics check as the fits table's, for the sensitivity's own series.
  for (const Machine* m : latency_machines())
    for (int lat : o.lat_sens) {
      if (lat == o.link_latency) continue;
      for (CaseId c : {CaseId::FaultFree, CaseId::BoardCentre})
        for (const char* a : kAlgos) {
          const auto it = series.find(skey(*m, c, a, lat));
          if (it != series.end())
            check_fit(it->second, m->name() + " " + enum_name(c) + " " + a + " at link latency " + std::to_string(lat));
        }
    }
  data["latency_sensitivity"] = rows;
}

}  // namespace fm::paper_report
