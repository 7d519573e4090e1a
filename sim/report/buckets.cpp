// faultmesh report paper: the training step with gradient buckets (sim/report/gradient_buckets.h)
// overlapping the backward pass, beside the conservative no-overlap step of the training
// table. Every bucket's allreduce is timed at its size class, simulated on the fault-free
// and centre-board cases (--bucket-runs, default on outside quick mode), else from the fit.
#include <algorithm>
#include <cmath>
#include <set>

#include "sim/report/impl.h"

namespace fm::paper_report {

std::vector<Bucket> Report::buckets_of(const Gradient& g) const {
  return make_buckets(*g.layers, g.params, g.elem, g.compute_ms, (uint64_t)std::llround(o.bucket_mib * (1 << 20)));
}

std::vector<uint64_t> Report::bucket_classes() const {
  std::set<uint64_t> c;
  for (const Gradient& g : grads)
    for (const Bucket& b : buckets_of(g)) c.insert(bucket_class(b.bytes));
  return {c.begin(), c.end()};
}

Report::Bucketed Report::bucketed(const Machine& m, CaseId c, const std::string& a, const Gradient& g) {
  const Series& s = series[skey(m, c, a)];
  Bucketed r;
  r.st = bucket_step(buckets_of(g), g.compute_ms, [&](uint64_t bytes) {
    const Estimate e = estimate(s, (double)bytes);
    r.ok = r.ok && e.ok;
    r.pending = r.pending || e.pending;
    r.simulated = r.simulated && e.simulated;
    const std::string k = m.name() + " " + enum_name(c) + " " + a + " bucket class " + size_str(bytes);
    if (e.ok && fitted_below_bound(s, e.simulated, e.us, (double)bytes) && flagged_classes.insert(k).second)
      unphysical.push_back(k + ": fitted " + fmt(e.us, 1) + " us below the link-load bound " +
                           fmt(s.bound_us_per_byte * (double)bytes, 1) + " us");
    return e.us / 1000;
  });
  return r;
}

namespace {

double mb(double bytes) { return bytes / 1e6; }

// "N rows, P parameters" of a per-layer table.
std::string table_size(const std::vector<Layer>& l) {
  uint64_t p = 0;
  for (const Layer& x : l) p += x.params;
  return std::to_string(l.size()) + " rows, " + std::to_string(p) + " parameters";
}

}  // namespace

void Report::write_buckets() {
  const uint64_t cap = (uint64_t)std::llround(o.bucket_mib * (1 << 20));
  md << "## Overlap with gradient buckets\n\n"
     << "The training table above is the conservative case: the whole gradient is allreduced after the backward "
     << "pass. Frameworks do better (PyTorch DDP's buckets, Horovod's tensor fusion): the backward pass produces the "
     << "layers' gradients from the last layer to the first, they are packed into buckets of at least "
     << fmt(o.bucket_mib, 2) << " MiB (`--bucket-mb`, DDP's default bucket_cap_mb = 25; a layer is never split), "
     << "and each bucket is allreduced as soon as it is full and the previous bucket's allreduce has finished, "
     << "so the allreduces run during the rest of the backward pass. The per-layer gradient sizes and forward "
     << "multiply-accumulates are data (sim/report/data/: torchvision's ResNet-50 v1.5 at 224x224, "
     << table_size(resnet50_layers()) << "; bert-large-uncased at sequence 512, " << table_size(bert_large_layers())
     << "), scaled to "
     << "the gradient's parameter count. The forward pass takes a third of the compute time and the backward pass "
     << "two thirds (twice the forward MACs), each layer in proportion to its MACs. Each bucket's allreduce takes "
     << "the time of its size class, its bytes rounded up to the next m x 2^e with m in 8..15 (at most 12.5 % "
     << "more bytes, so the figure errs slow), "
     << (o.bucket_runs ? "each class simulated on the fault-free and centre-board cases of every machine and algorithm."
                       : "from the fits (`--bucket-runs off`; quick mode's default): indicative only.")
     << " The step ends when both the compute and the last allreduce have; the exposed allreduce is the step minus "
     << "the compute. The optimizer step is not modelled, as in the training table.\n\n";

  // The buckets of each gradient (the same on every machine).
  md << "| gradient | bytes per chip | buckets | smallest / median / largest (MB) | size classes | last bucket ready (ms) |\n"
     << "|---|---|---|---|---|---|\n";
  Json jb = {{"cap_bytes", cap}, {"classes", bucket_classes()}, {"simulated", o.bucket_runs}};
  for (const Gradient& g : grads) {
    const std::vector<Bucket> bs = buckets_of(g);
    std::vector<uint64_t> sz;
    std::set<uint64_t> cls;
    Json jl = Json::array();
    for (const Bucket& b : bs) {
      sz.push_back(b.bytes);
      cls.insert(bucket_class(b.bytes));
      jl.push_back({{"first", (*g.layers)[b.first].name}, {"last", (*g.layers)[b.last].name}, {"bytes", b.bytes},
                    {"class_bytes", bucket_class(b.bytes)}, {"ready_ms", b.ready_ms}});
    }
    std::sort(sz.begin(), sz.end());
    md << "| " << g.model << " " << g.dtype() << " | " << fmt(mb(g.bytes()), 1) << " MB | " << bs.size() << " | "
       << fmt(mb((double)sz.front()), 2) << " / " << fmt(mb((double)sz[sz.size() / 2]), 2) << " / "
       << fmt(mb((double)sz.back()), 2) << " | " << cls.size() << " | " << fmt(bs.back().ready_ms, 2) << " |\n";
    jb["gradients"].push_back({{"model", g.model}, {"dtype", g.dtype()}, {"buckets", jl}});
  }
  md << "\n";

  // Per machine: the step with buckets against the no-overlap step, fault-free and centre board.
  Json rows = Json::array();
  for (const Machine& m : machines) {
    md << "### " << m.mesh() << " " << m.topo_name() << " (" << m.chips() << " chips)\n\n"
       << "| gradient | case | algorithm | allreduces (ms, sum of buckets) | step no overlap (ms) | step with buckets (ms) | exposed (ms) | hidden | throughput no overlap | throughput with buckets | source |\n"
       << "|---|---|---|---|---|---|---|---|---|---|---|\n";
    for (const Gradient& g : grads) {
      const size_t nb = buckets_of(g).size();
      const std::string gn = m.name() + " " + g.model + " " + g.dtype();
      const Series& sff = series[skey(m, CaseId::FaultFree, "ft2d")];
      const Bucketed ff = bucketed(m, CaseId::FaultFree, "ft2d", g);
      const Train ff0 = train(sff, g, 0);
      for (CaseId c : {CaseId::FaultFree, CaseId::BoardCentre}) {
        const auto cit = std::find_if(cases[m.name()].begin(), cases[m.name()].end(), [&](const Case& x) { return x.id == c; });
        for (const char* a : kAlgos) {
          const Series& s = series[skey(m, c, a)];
          const Train t0 = train(s, g, 0);
          const Bucketed b = bucketed(m, c, a, g);
          md << "| " << g.model << " " << g.dtype() << " | " << cit->title << " | " << a;
          if (!t0.ok || !b.ok || !ff.ok || !ff0.ok) {
            md << " | n/a | n/a | n/a | n/a | n/a | n/a | n/a | "
               << (!s.error.empty() ? s.error : t0.pending ? "pending" : t0.cut ? "cut (see the headline)" : "no fit") << " |\n";
            continue;
          }
          const double thr0 = rel_throughput(t0, ff0, m.chips());
          const double thr = (double)t0.workers / m.chips() * (ff.st.step_ms / b.st.step_ms);
          const std::string src = tag(b.simulated);
          md << " | " << fmt(b.st.comm_ms, 3) << " | " << fmt(t0.step_ms, 3) << " | " << fmt(b.st.step_ms, 3) << " | "
             << fmt(b.st.exposed_ms, 3) << " | " << fmt(100 * (1 - b.st.exposed_ms / b.st.comm_ms), 1) << " % | "
             << fmt(thr0, 4) << " | " << fmt(thr, 4) << " | " << src << " |\n";
          if (t0.workers < m.chips() && thr > 1 && !(b.simulated && ff.simulated))
            unphysical.push_back(gn + " " + enum_name(c) + " " + a + ": throughput with buckets " + fmt(thr, 4) + " with " +
                                 std::to_string(t0.workers) + " of " + std::to_string(m.chips()) +
                                 " chips working, from a fit");
          rows.push_back({{"machine", m.name()}, {"model", g.model}, {"dtype", g.dtype()}, {"case", enum_name(c)}, {"algo", a},
                          {"buckets", nb}, {"comm_ms", b.st.comm_ms}, {"step_no_overlap_ms", t0.step_ms},
                          {"step_ms", b.st.step_ms}, {"exposed_ms", b.st.exposed_ms},
                          {"throughput_no_overlap", thr0}, {"throughput", thr}, {"source", src}});
        }
      }
    }
    md << "\n";
  }
  jb["rows"] = rows;
  data["buckets"] = jb;
}

}  // namespace fm::paper_report
