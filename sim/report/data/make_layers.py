#!/usr/bin/env python3
"""Writes the per-layer gradient tables the paper report's bucket model reads
(resnet50_layers.csv, bert_large_layers.csv), derived from the two architectures so that
anyone can check them.

Each row is one parameter tensor group in forward order: its parameter count (the
gradient it produces) and its multiply-accumulates per sample in the forward pass (which
sets how long its backward pass takes). A row with 0 parameters is compute without a
gradient (BERT's attention products). Run: python3 sim/report/data/make_layers.py sim/data

ResNet-50 is torchvision's v1.5 (stride on the 3x3 convolution of each bottleneck,
224x224 input, 1000 classes): 25,557,032 parameters, 4.09 G MACs per image.
BERT-large is bert-large-uncased (24 layers, hidden 1024, 16 heads, FFN 4096, vocabulary
30,522, 512 positions, pooler): 335,141,888 parameters, at sequence length 512.
"""
import os
import sys


def resnet50():
    rows = []
    size = 112  # conv1 output side at 224x224 input

    def conv(name, cin, cout, k, out):
        rows.append((name, k * k * cin * cout, k * k * cin * cout * out * out))

    def bn(name, c):
        rows.append((name, 2 * c, 0))

    conv("conv1", 3, 64, 7, size)
    bn("bn1", 64)
    size = 56  # after the max pool
    cin = 64
    for li, (blocks, width, stride) in enumerate([(3, 64, 1), (4, 128, 2), (6, 256, 2), (3, 512, 2)], 1):
        for b in range(blocks):
            s = stride if b == 0 else 1
            out = size // s
            p = "layer%d.%d." % (li, b)
            conv(p + "conv1", cin, width, 1, size)
            bn(p + "bn1", width)
            conv(p + "conv2", width, width, 3, out)
            bn(p + "bn2", width)
            conv(p + "conv3", width, 4 * width, 1, out)
            bn(p + "bn3", 4 * width)
            if b == 0:
                conv(p + "downsample.0", cin, 4 * width, 1, out)
                bn(p + "downsample.1", 4 * width)
            cin = 4 * width
            size = out
    rows.append(("fc", 2048 * 1000 + 1000, 2048 * 1000))
    return rows


def bert_large(seq=512):
    h, ffn, layers, vocab, pos = 1024, 4096, 24, 30522, 512
    rows = [("embeddings.word", vocab * h, 0), ("embeddings.position", pos * h, 0),
            ("embeddings.token_type", 2 * h, 0), ("embeddings.LayerNorm", 2 * h, 0)]
    for i in range(layers):
        p = "encoder.layer.%d." % i
        for n in ("query", "key", "value"):
            rows.append((p + "attention." + n, h * h + h, h * h))
        # QK^T and the weighted sum of V: 2 x seq x hidden MACs per token, no parameters.
        rows.append((p + "attention.scores", 0, 2 * seq * h))
        rows.append((p + "attention.output.dense", h * h + h, h * h))
        rows.append((p + "attention.output.LayerNorm", 2 * h, 0))
        rows.append((p + "intermediate.dense", h * ffn + ffn, h * ffn))
        rows.append((p + "output.dense", ffn * h + h, ffn * h))
        rows.append((p + "output.LayerNorm", 2 * h, 0))
    # The pooler runs on the first token only: its MACs per token of the sequence.
    rows.append(("pooler.dense", h * h + h, h * h // seq))
    return [(n, pcount, macs * seq) for n, pcount, macs in rows]


def write(path, title, rows):
    with open(path, "w") as f:
        f.write("# %s: per-layer gradients, forward order. Written by sim/report/data/make_layers.py.\n" % title)
        f.write("# params: parameters of the row (its gradient); macs: forward multiply-accumulates per sample.\n")
        f.write("layer,params,macs\n")
        for n, pcount, macs in rows:
            f.write("%s,%d,%d\n" % (n, pcount, macs))
    print("%s: %d rows, %d params, %.3f G MACs" % (path, len(rows), sum(r[1] for r in rows), sum(r[2] for r in rows) / 1e9))


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    write(os.path.join(out, "resnet50_layers.csv"), "ResNet-50 v1.5, 224x224", resnet50())
    write(os.path.join(out, "bert_large_layers.csv"), "BERT-large uncased, sequence 512", bert_large())
