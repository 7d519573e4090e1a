// Gradient buckets as data-parallel frameworks allreduce them (PyTorch DDP's
// bucket_cap_mb, Horovod's tensor fusion): the backward pass produces each layer's
// gradient in reverse layer order, the gradients are packed into buckets of at least a
// cap, and each bucket is allreduced as soon as it is full and the previous bucket's
// allreduce is done, so communication overlaps the rest of the backward pass. The paper
// report (sim/report/buckets.cpp) uses it beside its conservative no-overlap step
// time; docs/training-model.md describes the model.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fm {

// One row of a per-layer gradient table (sim/report/data/*.csv): a parameter tensor group in
// forward order, its parameters (its gradient) and its forward multiply-accumulates per
// sample (how long its backward pass takes, relative to the others).
struct Layer {
  std::string name;
  uint64_t params = 0, macs = 0;
};

// Parses a table: '#' comment lines, the header "layer,params,macs", then one row per
// layer. Throws std::invalid_argument naming `what`, the line and what is allowed on a
// malformed row, a missing header, or a table without parameters or MACs.
std::vector<Layer> parse_layers(const std::string& csv, const std::string& what);

// The tables shipped in the binary (sim/report/data/, written by sim/report/data/make_layers.py):
// torchvision's ResNet-50 v1.5 at 224x224 and bert-large-uncased at sequence 512.
const std::vector<Layer>& resnet50_layers();
const std::vector<Layer>& bert_large_layers();

// One bucket: rows [first, last] of the table (forward order), its bytes per chip and
// when its last gradient is ready (ms from the step's start).
struct Bucket {
  int first = 0, last = 0;
  uint64_t bytes = 0;
  double ready_ms = 0;
};

// The buckets of a gradient of `params` parameters of `elem` bytes (the table's rows
// scaled so their bytes add up to exactly params x elem), with `compute_ms` per step:
// the forward pass takes a third of it and the backward pass two thirds (backward
// computes gradients for both activations and weights: twice the forward MACs), each row
// in proportion to its MACs. Rows are packed in reverse order until a bucket holds at
// least `cap_bytes` (a row is never split, as DDP does not split a tensor); the last
// bucket holds the rest. In allreduce order.
std::vector<Bucket> make_buckets(const std::vector<Layer>& layers, double params, int elem, double compute_ms,
                                 uint64_t cap_bytes);

// The size class a bucket's allreduce is simulated at: its bytes rounded up to the next
// m x 2^e with m in 8..15 (at most 12.5 % more bytes), at least 4 KiB, so a whole
// gradient's buckets need only a few simulated sizes, each erring slow.
uint64_t bucket_class(uint64_t bytes);

// The step with bucketed allreduces: each bucket starts when it is ready and the
// previous one has finished, and takes ar_ms(bytes of its class); the step ends when
// both the compute and the last allreduce have. exposed_ms = step - compute; comm_ms
// the allreduces' sum.
struct BucketStep {
  double step_ms = 0, exposed_ms = 0, comm_ms = 0;
};
BucketStep bucket_step(const std::vector<Bucket>& buckets, double compute_ms,
                       const std::function<double(uint64_t)>& ar_ms);

}  // namespace fm
