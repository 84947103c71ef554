#pragma once
// Graphs of the networks in Feng & Huang Table 2 at layer granularity, with the vertex
// counts of the supplementary Table 1 (Alexnet 12, VGG11/13/16/19 17/19/22/25, ResNet18/34
// 51/91, ResNet50/101/152 125/244/363, DenseNet121/161/169/201 306/406/426/506), and
// scalable ResNet-like and DenseNet-like graphs for benchmarks. Bytes are float32 tensor
// sizes for one 224x224 image. A dense layer concatenates its output onto its input (one
// concat vertex per layer, as the counts imply), so every one of these graphs is
// series-parallel: its division tree has Linear and Branch IS only.
#include "graph/Graph.h"

#include <vector>

namespace ckpt::test {

Graph alexnet();
Graph vgg(int depth);  // 11, 13, 16, 19
Graph resnet(int depth);  // 18, 34 (basic blocks), 50, 101, 152 (bottleneck blocks)
Graph densenet(int depth);  // 121, 161, 169, 201
// Inception-like: a stem, then `modules` modules of four branches (1x1; 1x1-3x3;
// 1x1-3x3-3x3; pool-1x1) joined by a concat, with a reduction every third module.
Graph inceptionLike(int modules);
// Stages of basic or bottleneck blocks, `blocks` in all (first block of each stage downsamples).
Graph resnetLike(int blocks, bool bottleneck);
// Dense blocks of `layersPerBlock` layers with transitions between, `blocks` blocks.
Graph densenetLike(int blocks, int layersPerBlock);

}  // namespace ckpt::test
