#pragma once
// Paths and small builders shared by the tests.
#include "graph/Graph.h"
#include "solvers/Plan.h"

#include <QByteArray>
#include <QString>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ckpt::test {

QString sourcePath(const QString& relative);  // inside this repository
QString sharedPath(const QString& relative);  // inside ../shared (may not exist)
QString binPath(const QString& executable);    // build/bin/...
bool haveSharedData();
// How much longer than the product's own target a timed check may take: 1, or 3 in a build with
// AddressSanitizer (-O1 with shadow memory runs several times slower; forking and ending a CBC
// child maps and unmaps its shadow). The targets hold for the release build; the sanitizer build
// checks that cancels and limits still end every job and child.
double timingSlack();
// Writes `text` to DIR/NAME and returns the path; a file that cannot be written ends the test run.
QString writeFile(const QString& dir, const QString& name, const QByteArray& text);

// A graph from ids, bytes and edges; ids are "v0", "v1", ... unless given.
Graph makeGraph(const std::vector<std::int64_t>& bytes, const std::vector<std::pair<int, int>>& edges);
// A chain v0 -> v1 -> ... with the given bytes.
Graph makeChain(const std::vector<std::int64_t>& bytes);
// Nested skips: the chain v0 -> ... -> v(n-1) plus v_i -> v_(n-1-i), so Branch and Linear IS
// alternate all the way down (a division tree as deep as the graph is long); bytes in [1, 97].
Graph makeRainbow(int n);
// ResNet-like: a stem, then `blocks` residual blocks (conv, conv, add joining the block's input),
// 1 + 3 * blocks vertices with names, ops and sizes.
Graph makeResidualNetwork(int blocks);
// A plan that checkpoints exactly these vertices, as if `solver` had chosen them.
Plan planOf(const Graph& g, const std::vector<VertexIndex>& checkpoints, const std::string& solver = "by hand");

}  // namespace ckpt::test
