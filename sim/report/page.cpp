// faultmesh report paper: the sections of OUT/results.md and their numbers in
// OUT/paper_data.json, from the runs and the fits (all but the availability section,
// sim/report/avail.cpp), and the figures drawn from them.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

#include "models/config.h"
#include "sim/io.h"
#include "sim/report/impl.h"
#include "sim/plot.h"

namespace fm::paper_report {

void Report::write_intro() {
  data["command"] = o.argv;
  data["fail_at_available"] = mid;
  for (const Machine& m : machines) data["sizes"][m.mesh()] = o.sizes_of(m.mesh());
  md << "# Results: allreduce around holes and the training job's availability\n\n"
     << "Written by `faultmesh report paper" ;
  for (const std::string& a : o.argv) md << " " << a;
  md << "` (sim/report/paper_report.cpp); rerun it to regenerate this page. "
     << (o.quick ? "**Quick mode**: small machines and tiny sizes, a smoke test of the pipeline, not the paper's numbers. " : "")
     << "Every number is labelled **sim** (simulated at flit level by `faultmesh allreduce`) or **fit** "
     << "(from the fit time = a + b * bytes over the simulated sizes of the same machine, case and algorithm).\n\n";
  // Where and how long the runs behind this page took: from their records in the run
  // store (what made each one), so the page says the same whichever session or machine
  // rendered it.
  {
    int stored = 0, total = 0;
    double wall = 0, gb = 0;
    std::map<std::string, int> cpus, commits;
    std::set<int> threads;
    for (const auto& [name, oc] : res) {
      ++total;
      if (!oc.ok) continue;
      ++stored;
      const Json& mb = oc.j.value("made_by", Json::object());
      wall += mb.value("wall_seconds", 0.0);
      ++cpus[mb.value("cpu", "unknown")];
      ++commits[mb.value("commit", "unknown")];
      threads.insert(mb.value("threads", 1));
      gb += record_chip_gb(oc.j);
    }
    md << "**Runs behind this page**: " << stored << " of the plan's " << total << " simulations are in the run store (`"
       << o.store << "`), " << total - stored << " pending; together they took " << fmt(wall / 3600, 2)
       << " h of wall time for " << fmt(gb, 0) << " chip-GB";
    if (!cpus.empty()) {
      md << ", on ";
      bool first = true;
      for (const auto& [cpu, n] : cpus) md << (first ? "" : "; ") << cpu << " (" << n << " runs)", first = false;
      md << ", with ";
      first = true;
      for (int t : threads) md << (first ? "" : " or ") << t, first = false;
      md << " thread" << (threads.size() > 1 || *threads.begin() > 1 ? "s" : "") << " per run, made by "
         << commits.size() << " commit" << (commits.size() > 1 ? "s" : "") << " (each record names its own)";
    }
    md << ". `faultmesh report paper --plan` lists what is left and how long it takes; `--budget` runs it, answer first.\n\n";
  }
  write_headline();
  md << "## Set-up\n\n"
     << "- Machines: ";
  for (size_t i = 0; i < machines.size(); ++i) md << (i ? ", " : "") << machines[i].mesh() << " " << machines[i].topo_name() << " (" << machines[i].chips() << " chips)";
  md << ". Every algorithm at its best measured set-up (docs/collectives.md, \"Defaults\"): `--order " << kReportOrder
     << " --line " << kReportLine << "` (both phase orders at once on half the data "
     << "each; per line a ring where it closes, else a chain). TPU-v3-like defaults of `faultmesh allreduce` (100 GB/s per link direction, 64-byte flits, "
     << "4 VCs, 4 local lanes, chunk auto = bytes/256 within 4..64 KiB; docs/chip.md, docs/router-microarchitecture.md), "
     << "with the links: " << o.link_latency << " cycles (" << fmt(o.link_latency * NetworkConfig().cycle_ns(), 1)
     << " ns) per hop for flits and credits (`--link-latency`, see the assumptions) and " << buf_for_latency(o.link_latency)
     << "-flit VC buffers, one VC's credit round trip; boards of 2x2 chips. Each run's arguments give its links, buffers, "
     << "order and lines explicitly, and a stored run is reused only while its whole configuration echo matches.\n"
     << "- Simulated sizes per chip: ";
  for (const auto& [w, h] : o.meshes) {
    const std::string mesh = std::to_string(w) + "x" + std::to_string(h);
    md << (mesh == std::to_string(o.meshes[0].first) + "x" + std::to_string(o.meshes[0].second) ? "" : "; ") << mesh << ": ";
    const auto& v = o.sizes_of(mesh);
    for (size_t i = 0; i < v.size(); ++i) md << (i ? ", " : "") << size_str(v[i]);
  }
  md << " (`--verify off`: timing only; the allreduce tests check the sums)"
     << (o.sizes_given ? ". **Not this mode's default sizes** (" + std::string(o.quick ? "32KiB,64KiB,128KiB" : kFullSizes) +
                             "): chosen with `--sizes`, e.g. to fit the time available; at small sizes the latency term a "
                             "is a larger part of the time, so read the residuals and the extrapolation check"
                       : std::string())
     << ".\n"
     << "- Algorithms: **ft2d** (2-D allreduce with rows and columns re-threaded around holes) against the "
     << "two baselines **shrink** (2-D allreduce on the largest fault-free rectangle; the other chips idle) and "
     << "**snake** (one ring through every live chip).\n"
     << "- Gradients: ResNet-50 " << fmt(o.resnet_params / 1e6, 1) << "M parameters, BERT-large "
     << fmt(o.bert_params / 1e6, 0) << "M; fp32 (4 bytes) and bf16 (2 bytes). The simulator's timing depends "
     << "on the bytes only (the element size is only checked), so bf16 is the same machine at half the bytes.\n"
     << whole_text() << "\n\n";
}

// The set-up's line on what is simulated whole and what is fitted (--whole).
std::string Report::whole_text() const {
  if (!o.whole)
    return "- Simulated whole: nothing (`--whole off`). Every gradient-size number is extrapolated from the simulated "
           "sizes with the linear model, whose residuals are given with each fit; the extrapolation check compares it "
           "with one larger run.";
  auto mb = [](double b) { return fmt(b / 1e6, 1) + " MB"; };
  return "- Simulated whole (`--whole on`), at flit level, each gradient's exact bytes: ResNet-50 bf16 (" +
         mb(grad(Net::ResNet50, DType::BF16).bytes()) + ") on every machine, case and algorithm; ResNet-50 fp32 (" + mb(grad(Net::ResNet50, DType::FP32).bytes()) +
         ") fault-free and with the centre board failed, ft2d, and with the centre board failed, snake; BERT-large "
         "bf16 (" + mb(grad(Net::BertLarge, DType::BF16).bytes()) +
         ") fault-free, ft2d, on the machines with the fewest chips; BERT-large fp32 (" + mb(grad(Net::BertLarge, DType::FP32).bytes()) +
         ") fault-free, ft2d, once. Those numbers are marked sim. The others (ResNet-50 fp32 with the other cases "
         "and algorithms, BERT-large) come from the fit over the simulated sizes, which are not fitted to the "
         "whole-size runs: \"Extrapolation check: fits against larger runs\" below gives each fit's error against "
         "them, and a fitted number beyond the largest size such a run has checked is shown as pending.\n"
         "- Left out, and why: the bucket size classes are simulated for ft2d on the smallest machines (the other "
         "algorithms' and machines' bucket times come from their fits, inside the checked regime); the link-latency "
         "sensitivity runs on the smallest machines (a ring step's latency does not grow with the machine); BERT-large "
         "is simulated whole once per machine kind at bf16 and once at fp32, enough to check the fits it comes from; the "
         "snake is not simulated at BERT-large's sizes (its fits are not checked there, and a whole snake run per "
         "machine and gradient would add about 6,600 chip-GB, more than the rest of the plan left), so there its "
         "figures are its link-load bound, marked bound. "
         "Together this keeps the plan within 15 hours of a 2-core machine (docs/sweeps.md, \"The paper "
         "report's run store\").";
}

void Report::write_headline() {
  md << "## The answer: training throughput with one failed board\n\n"
     << "Relative to the fault-free machine running ft2d: the change in training throughput (samples per second, "
     << "per-chip batch fixed) when the centre board has failed, with ft2d and with the two baselines, and how much "
     << "of ft2d's change is the four lost chips alone (their share of the machine); the rest is the slower step. "
     << "Each allreduce behind a number is marked sim or fit (the training table below has the same rows). These "
     << "assume no overlap of the allreduce with the backward pass; the last column is ft2d's throughput when the "
     << "gradient is allreduced in buckets during the backward pass, as frameworks do (\"Overlap with gradient "
     << "buckets\" below, same rows).\n\n"
     << "| machine | gradient | throughput ft2d | of which lost chips | shrink | snake | step time ft2d | source ft2d / shrink / snake | throughput ft2d with buckets |\n"
     << "|---|---|---|---|---|---|---|---|---|\n";
  Json jh = Json::array();
  int rows = 0, final_rows = 0;  // rows, and rows whose ft2d, shrink and snake figures are all final
  std::string words;  // in words, for the largest machines and the fp32 gradients
  auto pct = [](double r) { return (r >= 1 ? "+" : "") + fmt(100 * (r - 1), 2) + " %"; };
  auto cost = [&](int i, const Train* t, const double* thr) {
    return fmt(100 * (1 - thr[i]), 1) + " % (" + (t[i].cut ? "bound" : tag(t[i].simulated)) + ")";
  };
  for (const Machine& m : machines) {
    for (const Gradient& g : grads) {
      const Train ff = train(series[skey(m, CaseId::FaultFree, "ft2d")], g, o.overlap);
      Train t[3];
      for (int i = 0; i < 3; ++i) t[i] = train(series[skey(m, CaseId::BoardCentre, kAlgos[i])], g, o.overlap);
      md << "| " << m.mesh() << " " << m.topo_name() << " (" << m.chips() << ") | " << g.model << " " << g.dtype();
      Json j = {{"machine", m.name()}, {"model", g.model}, {"dtype", g.dtype()}, {"case", enum_name(CaseId::BoardCentre)}};
      double thr[3] = {NAN, NAN, NAN};
      for (int i = 0; i < 3; ++i)
        if ((t[i].ok || t[i].cut) && ff.ok) thr[i] = rel_throughput(t[i], ff, m.chips());
      const double lost = t[0].ok ? (double)t[0].workers / m.chips() : NAN;
      // A ratio is pending while either of its allreduces is; from a cut allreduce's
      // link-load bound it is an upper bound on the throughput.
      auto gap = [&](int i) { return ff.pending || t[i].pending ? "pending" : "n/a"; };
      auto thr_cell = [&](int i) {
        return !std::isfinite(thr[i]) ? std::string(gap(i)) : (t[i].cut ? "at most " : "") + pct(thr[i]);
      };
      md << " | " << thr_cell(0) << " | " << (std::isfinite(lost) ? pct(lost) : missing(t[0])) << " | " << thr_cell(1)
         << " | " << thr_cell(2) << " | " << (t[0].ok && ff.ok ? pct(t[0].step_ms / ff.step_ms) : gap(0)) << " | ";
      for (int i = 0; i < 3; ++i) md << (i ? " / " : "") << (t[i].ok ? tag(t[i].simulated) : t[i].cut ? "bound" : missing(t[i]));
      ++rows;
      final_rows += ff.ok && t[0].ok && t[1].ok && (t[2].ok || t[2].cut);
      // The same figure with buckets: the bucket section's row (write_buckets).
      const Bucketed bf = bucketed(m, CaseId::FaultFree, "ft2d", g), bc = bucketed(m, CaseId::BoardCentre, "ft2d", g);
      const bool bok = bf.ok && bc.ok && t[0].ok;
      const double bthr = bok ? (double)t[0].workers / m.chips() * (bf.st.step_ms / bc.st.step_ms) : NAN;
      md << " | " << (bok ? pct(bthr) + " (" + tag(bf.simulated && bc.simulated) + ")"
                          : bf.pending || bc.pending || t[0].pending ? "pending" : "n/a")
         << " |\n";
      if (bok) j["ft2d_buckets"] = {{"throughput", bthr}, {"source", tag(bf.simulated && bc.simulated)}};
      for (int i = 0; i < 3; ++i)
        if (std::isfinite(thr[i]))
          j[kAlgos[i]] = t[i].cut ? Json{{"throughput_at_most", thr[i]}, {"source", "bound"}}
                                  : Json{{"throughput", thr[i]}, {"source", tag(t[i].simulated)}};
      if (std::isfinite(lost)) j["ft2d_lost_chips"] = lost;
      if (t[0].ok && ff.ok) j["ft2d_step"] = t[0].step_ms / ff.step_ms;
      jh.push_back(j);
      if (m.chips() == biggest().chips() && g.type == DType::FP32 && std::isfinite(thr[0]))
        words += "- " + m.mesh() + " " + m.topo_name() + ", " + g.model + " fp32: one failed board costs " + cost(0, t, thr) +
                 " of the training throughput with ft2d, of which " + fmt(100 * (1 - lost), 1) +
                 " % is the lost chips" + (std::isfinite(thr[1]) ? "; " + cost(1, t, thr) + " with shrink" : "") +
                 (std::isfinite(thr[2]) ? std::string(", ") + (t[2].cut ? "at least " : "") + cost(2, t, thr) + " with snake" : "") +
                 (bok ? "; with gradient buckets overlapping the backward pass, ft2d loses " + fmt(100 * (1 - bthr), 1) +
                            " % (" + tag(bf.simulated && bc.simulated) + ")"
                      : "") +
                 ".\n";
    }
  }
  data["headline"] = jh;
  data["headline_final_rows"] = final_rows;
  md << "\n**" << final_rows << " of " << rows << " rows final**" << (final_rows == rows ? "." : "")
     << (final_rows < rows ? ": a row is final when its ft2d, shrink and snake figures all stand on runs in the run store "
                             "(sim, or a fit inside the regime whole-size runs checked; the snake's figure may be its bound, "
                             "below); the others show **pending** "
                             "where their runs have not been made yet (`faultmesh report paper --plan` lists them, "
                             "`--budget` runs them in this order: this table's runs first)."
                           : "");
  double largest = 0;
  for (const Gradient& g : grads) largest = std::max(largest, g.bytes());
  if (o.whole && snake_checked_upto < largest)
    md << " The snake's fits are checked by whole-size snake runs only"
       << (snake_checked_upto > 0 ? ", up to " + fmt(snake_checked_upto / 1e6, 1) + " MB per chip" : std::string())
       << " (its ring's steps at the fitted sizes are another regime than a large gradient's: "
       << "docs/training-model.md). Beyond the largest the plan makes (" << fmt(snake_planned_upto / 1e6, 1)
       << " MB) the snake is cut: each whole run there would cost as much as a BERT-large ft2d run, and the "
       << "snake is a baseline, so its figure is its link-load bound (marked bound): the snake's allreduce takes "
       << "at least that long, so its throughput is at most the figure given.";
  md << "\n\n" << words << "\n";
}

void Report::write_assumptions() {
  md << "## Assumptions (all overridable)\n\n"
     << "| assumption | value | option | source or reasoning |\n|---|---|---|---|\n"
     << "| ResNet-50 compute per step | " << fmt(o.resnet_ms, 1) << " ms | `--resnet-compute-ms` | "
     << "forward pass ~4.1 G multiply-adds = 8.2 GFLOP, training ~3x = ~25 GFLOP per image; a TPU-v3 chip peaks at "
     << "123 TFLOP/s (bf16), taken at ~40 % utilisation = ~49 TFLOP/s, i.e. ~2,000 images/s per chip; per-chip "
     << "batch 32 (global 32,768 on 1024 chips, the large-batch regime of MLPerf ResNet-50 submissions) gives 16 ms. "
     << "An assumption, not a measurement. |\n"
     << "| BERT-large compute per step | " << fmt(o.bert_ms, 1) << " ms | `--bert-compute-ms` | "
     << "~6 FLOP per parameter per token (forward + backward), 340M parameters x 512 tokens = ~1.0 TFLOP per "
     << "sequence; at ~49 TFLOP/s per chip ~21 ms per sequence; per-chip batch 8 (global 8,192 on 1024 chips, "
     << "LAMB-style large batch) gives ~170 ms. An assumption. |\n"
     << "| overlap of allreduce with compute | " << fmt(o.overlap, 2) << " | `--overlap` | "
     << "exposed allreduce = (1 - overlap) x allreduce time. 0 (none) is the conservative default: the whole "
     << "allreduce follows the backward pass; real frameworks overlap part of it with the backward pass. |\n"
     << "| gradient bucket cap | " << fmt(o.bucket_mib, 2) << " MiB | `--bucket-mb` | PyTorch DDP's default "
     << "bucket_cap_mb (25 MiB; its smaller first bucket is not modelled); used by \"Overlap with gradient buckets\" only. |\n"
     << "| forward : backward compute | 1 : 2 | - | the backward pass computes the gradients of both the activations "
     << "and the weights, twice the forward multiply-adds; per layer in proportion to its MACs (sim/report/data/). |\n"
     << "| per-layer gradients | sim/report/data/*.csv | - | derived from the architectures by sim/report/data/make_layers.py: "
     << "torchvision ResNet-50 v1.5 (25,557,032 parameters, 4.09 G MACs per 224x224 image) and bert-large-uncased "
     << "(335,141,888 parameters, sequence 512), each scaled to `--resnet-params` / `--bert-params`. |\n"
     << "| ICI link latency per hop | " << o.link_latency << " cycles = " << fmt(o.link_latency * NetworkConfig().cycle_ns(), 1)
     << " ns | `--link-latency` | a TPU-v3-class link is a SerDes lane with Reed-Solomon FEC: RS(544,514) encoding "
     << "and decoding take ~100 ns (Sella, Moore and Zilberman, \"FEC Killed the Cut-Through Switch\", 2018; "
     << "transceiver data sheets give 100-120 ns), the PAM4 SerDes ~10 ns per end, and 2 m of cable between boards "
     << "~10 ns (5 ns/m): ~130 ns, i.e. ~200 cycles of 0.64 ns. TPU v3's own figure is not published. Credits "
     << "return over the same link. The section \"Link latency sensitivity\" shows 1 to 500 cycles. |\n"
     << "| VC buffer depth | " << buf_for_latency(o.link_latency) << " flits | - | one VC's credit round trip "
     << "(pipeline + link + credit + 1 cycles) rounded up to 8, so one VC alone keeps a link busy; real routers "
     << "size their buffers for the longest link in the same way. |\n"
     << "| per-chip batch when chips are lost | fixed | - | weak scaling: the compute time per step does not "
     << "change, the step processes fewer samples (throughput = working chips / step time). |\n"
     << "| board MTBF | " << fmt(o.avail.mtbf_h, 0) << " h | `--mtbf-h` | Meta's Llama 3 report (2024) counts "
     << "419 unexpected interruptions in 54 days on 16,384 GPUs, about one per 2,100 GPU-days (~5.8 years per "
     << "accelerator including its share of host failures); a board of 4 chips plus its host would then fail every "
     << "~1.4 years. We take 1 year to include host hardware and software failures: an assumption, and the "
     << "result scales with it. |\n"
     << "| (a) spare slice | " << (o.avail.spare_slice_h ? fmt(*o.avail.spare_slice_h, 2) + " h" : std::string("none"))
     << " | `--spare-slice-h` | a job on a whole 1024-chip pod has no healthy slice to move to, so by default "
     << "stop-and-repair waits on its own slice for the repair, as route-around does; with a spare slice it moves "
     << "there after this time instead. |\n"
     << "| restart from checkpoint | " << fmt(o.avail.restart_h * 60, 0) << " min | `--restart-h` | restore the "
     << "checkpoint, re-initialise, recompile; assumption (minutes to tens of minutes for large jobs). |\n"
     << "| (b) reconfigure around a hole | " << fmt(o.avail.reconfig_h * 60, 1) << " min | `--reconfig-min` | "
     << "new route tables (faultmesh `routes` builds and checks them for 1024 chips in seconds), recompile the "
     << "collective, redo the interrupted step from the replicated weights; assumption. |\n"
     << "| board repair | " << fmt(o.avail.repair_h, 0) << " h | `--repair-h` | a replacement board installed "
     << "within two days, the same for both policies: (a) without a spare slice waits for it (a board failing "
     << "meanwhile extends the wait), (b) runs around the hole and takes the board back at the next checkpoint "
     << "with a restart. |\n"
     << "| checkpoint interval | " << fmt(o.avail.ckpt_h, 2) << " h | `--ckpt-h` | hourly; writing is assumed "
     << "asynchronous (free); a failure in (a) loses the work since the last one. |\n"
     << "| job length | " << fmt(o.avail.work_h / 24, 1) << " days | `--job-days` | the work of a multi-week "
     << "pre-training run on the full, never-failing machine; each simulated job runs until that work is done "
     << "(time-to-train), cut off at " << fmt(kJobCap, 0) << "x. |\n"
     << "| most holes in (b) | " << o.avail.max_holes << " | `--max-holes` | step times are simulated for 1 and "
     << "2 failed boards; a further failure falls back to (a). |\n\n";
}

void Report::write_runs() {
  md << "## Simulated runs\n\n"
     << "Every run, with the time of the allreduce alone. Slowdown = time / time of the fault-free ft2d run "
     << "of the same machine and size. `run` is the run's name; its record in the run store (`" << o.store
     << "`) has everything else, including which commit and host made it.\n\n"
     << "| machine | case | algo | bytes | cycles | time_us | busbw_GBps | participants | slowdown | run |\n"
     << "|---|---|---|---|---|---|---|---|---|---|\n";
  Json jruns = Json::array();
  std::vector<const Point*> listed;  // the fitted sizes, then the whole-size runs
  for (const auto* v : {&all, &wholepts, &midwhole})
    for (const Point& p : *v) listed.push_back(&p);
  for (const Point* pp : listed) {
    const Point& p = *pp;
    const Outcome& oc = res[p.name];
    if (!oc.ok) {
      md << "| " << p.m.name() << " | " << p.c.name() << " | " << p.algo << " | " << p.bytes << " | "
         << (oc.pending ? "pending" : "failed") << " | | | | | " << p.name << " |\n";
      jruns.push_back({{"run", p.name}, {"ok", false}, {"pending", oc.pending}, {"error", oc.error}});
      continue;
    }
    const std::string ffn = p.m.name() + "_faultfree_ft2d_" + size_str(p.bytes);
    const double t = oc.j.value(rk::kTimeUs, 0.0);
    double slow = NAN;
    if (res[ffn].ok) slow = t / res[ffn].j.value(rk::kTimeUs, 0.0);
    md << "| " << p.m.name() << " | " << p.c.name() << " | " << p.algo << " | " << p.bytes << " | "
       << oc.j.value(rk::kCycles, (uint64_t)0) << " | " << fmt(t, 3) << " | "
       << fmt(oc.j.value(rk::kBusbwGBps, 0.0), 2) << " | " << oc.j.value(rk::kParticipants, 0) << " | "
       << fmt(slow, 3) << " | " << p.name << " |\n";
    jruns.push_back({{"run", p.name}, {"ok", true}, {"machine", p.m.name()}, {"case", p.c.name()}, {"algo", p.algo},
                     {"bytes", p.bytes}, {"time_us", t}, {"slowdown", slow}});
  }
  data["runs"] = jruns;
  bool any_failed = false;
  for (const Point* pp : listed)
    if (const Point& p = *pp; !res[p.name].ok && !res[p.name].pending) {
      if (!any_failed) md << "\nFailed or refused runs (the reason from the run's stderr):\n\n";
      any_failed = true;
      md << "- " << p.name << ": " << res[p.name].error << "\n";
    }
  md << "\n";
}

void Report::write_figures() {
  md << "## Figures\n\n";
  const std::string img = o.out + "/img";
  // Heatmaps: the largest machine (first topology), largest size, ft2d, before and after.
  const Machine& big = biggest();
  {
    const std::string& before = heatmap_before;
    const std::string& after = heatmap_after;
    const std::string sz = before.substr(before.rfind('_') + 1);
    if (res[before].ok && res[after].ok && res[before].j.contains(rk::kLinkUtilization) &&
        res[after].j.contains(rk::kLinkUtilization)) {
      plot_heatmap(img, res[before].j, "before", big.mesh() + " " + big.topo_name() + ", ft2d, fault-free");
      plot_heatmap(img, res[after].j, "after", big.mesh() + " " + big.topo_name() + ", ft2d, centre board failed");
      md << "Link utilization (flits/cycle per link direction over the allreduce) of ft2d on " << big.mesh() << " "
         << big.topo_name() << " at " << sz << " per chip, fault-free and with the centre board "
         << "failed (sim):\n\n![before](img/heatmap_before.png)\n![after](img/heatmap_after.png)\n\n";
      figs.push_back("heatmap_before");
      figs.push_back("heatmap_after");
    } else {
      md << "Heatmaps: not drawn (the runs " << before << " / " << after << " are "
         << (res[before].pending || res[after].pending ? "pending" : "not complete") << ").\n\n";
    }
  }
  // Slowdown bars: BERT-large fp32 per machine.
  for (const Machine& m : machines) {
    const Gradient& g = grad(Net::BertLarge, DType::FP32);
    const Train ff = train(series[skey(m, CaseId::FaultFree, "ft2d")], g, o.overlap);
    if (!ff.ok) continue;
    std::ostringstream d, st;
    bool has[3] = {false, false, false};  // per algorithm: a bar to draw (gnuplot refuses a column of NaN only)
    for (const Case& c : cases[m.name()]) {
      d << "\"" << c.name() << "\"";
      for (size_t i = 0; i < 3; ++i) {
        const Train t = train(series[skey(m, c.id, kAlgos[i])], g, o.overlap);
        d << " " << (t.ok ? fmt(t.ar_ms / ff.ar_ms, 5) : "NaN");
        has[i] |= t.ok;
      }
      d << "\n";
    }
    if (!has[0] && !has[1] && !has[2]) continue;
    st << "set title 'Allreduce time vs fault-free ft2d, " << g.model << " " << g.dtype() << " (fit), " << m.mesh()
      << " " << m.topo_name() << "'\nset ylabel 'slowdown (x)'\nset style data histograms\n"
      << "set style histogram clustered gap 1\nset style fill solid 0.85 border -1\nset grid ytics\n"
      << "set yrange [0:*]\nset key top left\nset xtics rotate by -20\n";
    const std::string name = "slowdown_" + m.name();
    const std::string b = plot_block("d");
    std::string plot;
    for (size_t i = 0; i < 3; ++i)
      if (has[i])
        plot += std::string(plot.empty() ? "plot " : ", ") + b + " using " + std::to_string(i + 2) +
                (plot.empty() ? ":xtic(1)" : "") + " title '" + kAlgos[i] + "' lc " + std::to_string(i + 1);
    plot_script(img, name, {{"d", d.str()}}, st.str(), plot, 900, 500);
    figs.push_back(name);
    md << "![slowdown " << m.name() << "](img/" << name << ".png)\n";
  }
  md << "\n";
}

void Report::write_files() {
  const std::string img = o.out + "/img";
  md << "\n## Files\n\n`paper_data.json` beside this page holds every number above; the figures are in `img/` as PNG "
     << "and SVG with their gnuplot scripts and data (`gnuplot NAME.gp`, run from the directory the report was written "
     << "from, redraws one from NAME.dat).\n";
  data["figures"] = figs;
  write_file_atomic(o.out + "/results.md", md.str());
  write_file_atomic(o.out + "/paper_data.json", data.dump(1) + "\n");
  std::cout << o.out << "/results.md\n" << o.out << "/paper_data.json\n";
  for (const std::string& f : figs) std::cout << img << "/" << f << ".png\n";
}

}  // namespace fm::paper_report
