#pragma once
// The core's division tree as the tree view's display data, each node with a plain-words reason
// for its type (its linear splitting vertices, its branches or its maximal members).
#include "DivisionTreeView.h"
#include "theory/DivisionTree.h"

namespace ckpt::ui {

TreeDisplay makeTreeDisplay(const Graph& graph, const DivisionTree& tree);

}  // namespace ckpt::ui
