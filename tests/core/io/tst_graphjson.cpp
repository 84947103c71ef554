#include "TestData.h"
#include "graph/GradientFlow.h"
#include "graph/GraphError.h"
#include "io/GraphJson.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

using namespace ckpt;

namespace {

Graph parse(const char* text) { return parseGraphJson(text, "test.json"); }

}  // namespace

class GraphJsonTest : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsEveryField()
    {
        Graph g = parse(R"({"schema": "checkpoint-explorer/graph", "version": 1, "name": "tiny",
            "metadata": {"parameter_bytes": 1234},
            "vertices": [
              {"id": "x", "name": "input", "op": "input", "bytes": 602112, "shape": [1, 3, 224, 224], "dtype": "float32"},
              {"id": "y", "name": "conv1", "op": "aten::conv2d", "bytes": 10, "compute": 118013952, "module": "features.0"}],
            "edges": [{"from": "x", "to": "y", "op": "conv2d"}]})");
        QCOMPARE(QString::fromStdString(g.name()), QString("tiny"));
        QCOMPARE(g.vertexCount(), 2);
        const Vertex& x = g.vertex(0);
        QCOMPARE(x.bytes, 602112);
        QVERIFY(x.shape.has_value());
        QCOMPARE(x.shape->size(), 4u);
        QCOMPARE(QString::fromStdString(x.dtype), QString("float32"));
        const Vertex& y = g.vertex(1);
        QCOMPARE(*y.compute, 118013952.0);
        QCOMPARE(QString::fromStdString(y.module), QString("features.0"));
        QCOMPARE(QString::fromStdString(g.edge(0).op), QString("conv2d"));
        QCOMPARE(QString::fromStdString(g.metadata().at("parameter_bytes")), QString("1234"));
    }

    void savedByRoundTrip()
    {
        // Absent (unknown), empty (nobody keeps it) and a list stay distinct through a round trip.
        const Graph g = parse(R"({"vertices": [{"id": "a", "bytes": 1, "saved_by": ["b"]}, {"id": "b", "bytes": 1, "saved_by": []},
            {"id": "c", "bytes": 1}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]})");
        QCOMPARE(*g.vertex(0).autograd->savedBy, std::vector<std::string>{"b"});
        QVERIFY(g.vertex(1).autograd->savedBy && g.vertex(1).autograd->savedBy->empty());
        QVERIFY(!g.vertex(2).autograd->savedBy);
        QVERIFY(g.vertex(1).autograd.written() && !g.vertex(2).autograd.written());
        const Graph back = parseGraphJson(toGraphJson(g), "back.json");
        for (VertexIndex v = 0; v < 3; ++v)
            QCOMPARE(back.vertex(v).autograd->savedBy, g.vertex(v).autograd->savedBy);
    }

    void olderStaticValueFields()
    {
        // Graphs exported before static_values gave one value per vertex; it reads as that one entry.
        const Graph g = parse(R"({"vertices": [{"id": "a", "bytes": 1, "static_value_bytes": 31, "static_value_readers": ["b"]},
            {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})");
        QCOMPARE(g.vertex(0).autograd->staticValues, (std::vector<StaticValue>{{31, 0, 0, {"b"}}}));
        QVERIFY(g.vertex(1).autograd->staticValues.empty());
    }

    void workspaceRoundTrip()
    {
        // Absent means 0 (old graphs); a value survives a round trip.
        const Graph g = parse(R"({"vertices": [{"id": "a", "bytes": 1, "static_values": [{"bytes": 31, "readers": ["b"], "saved_bytes": 27, "remade_saved_bytes": 3}, {"bytes": 5}]},
            {"id": "b", "bytes": 41, "gradient_bytes": 39, "forward_workspace_bytes": 7, "backward_workspace_bytes": 9, "backward_workspace_released_bytes": 0, "backward_released_rise_bytes": 59,
            "checkpointed_forward_workspace_bytes": 11, "saves_other": true, "passes_gradient_to": ["a"], "passes_gradient_view_to": ["a"],
            "requires_grad": false, "reads_without_gradient": ["a"], "static_gradient_bytes": 13, "static_gradient_until": "a", "slices_gradient_to_statics": true, "output": true,
            "parameter_bytes": 23, "tied_parameter_bytes": 21, "tied_parameter_until": "a",
            "leaf_inputs_backward_workspace_bytes": 17, "leaf_inputs_backward_rise_bytes": 53, "engine_backward_workspace_bytes": 19, "slices_gradient_to": ["a"],
            "engine_backward_workspace_released_bytes": 41, "engine_backward_released_rise_bytes": 47, "engine_first_node_bytes": 43,
            "draws_random": true, "first_backward_node_bytes": 29,
            "backward_workspace_partly_released_bytes": 31, "backward_workspace_held_inputs": ["a"],
            "copied_statics_forward_workspace_bytes": 37}],
            "edges": [{"from": "a", "to": "b"}]})");
        QVERIFY(!g.vertex(0).autograd->gradientBytes);  // absent: every output tracked
        QCOMPARE(g.vertex(1).autograd->gradientBytes, std::optional<std::int64_t>(39));
        QCOMPARE(gradientBytes(g.vertex(1)), std::int64_t(39));
        QCOMPARE(g.vertex(0).autograd->forwardWorkspaceBytes, std::int64_t(0));
        QCOMPARE(g.vertex(1).autograd->forwardWorkspaceBytes, std::int64_t(7));
        QCOMPARE(g.vertex(1).autograd->backwardWorkspaceBytes, std::int64_t(9));
        QVERIFY(!g.vertex(0).autograd->backwardWorkspaceReleasedBytes);  // absent: not measured, unlike 0
        QCOMPARE(g.vertex(1).autograd->backwardWorkspaceReleasedBytes, std::optional<std::int64_t>(0));
        QVERIFY(!g.vertex(0).autograd->backwardReleasedRiseBytes);
        QCOMPARE(g.vertex(1).autograd->backwardReleasedRiseBytes, std::optional<std::int64_t>(59));
        QVERIFY(!g.vertex(0).autograd->leafInputsBackwardWorkspaceBytes);
        QCOMPARE(g.vertex(1).autograd->leafInputsBackwardWorkspaceBytes, std::optional<std::int64_t>(17));
        QVERIFY(!g.vertex(0).autograd->leafInputsBackwardRiseBytes);
        QCOMPARE(g.vertex(1).autograd->leafInputsBackwardRiseBytes, std::optional<std::int64_t>(53));
        QVERIFY(!g.vertex(0).autograd->engineBackwardWorkspaceBytes);
        QCOMPARE(g.vertex(1).autograd->engineBackwardWorkspaceBytes, std::optional<std::int64_t>(19));
        QVERIFY(!g.vertex(0).autograd->engineBackwardWorkspaceReleasedBytes);
        QCOMPARE(g.vertex(1).autograd->engineBackwardWorkspaceReleasedBytes, std::optional<std::int64_t>(41));
        QVERIFY(!g.vertex(0).autograd->engineBackwardReleasedRiseBytes);
        QCOMPARE(g.vertex(1).autograd->engineBackwardReleasedRiseBytes, std::optional<std::int64_t>(47));
        QVERIFY(!g.vertex(0).autograd->engineFirstNodeBytes);
        QCOMPARE(g.vertex(1).autograd->engineFirstNodeBytes, std::optional<std::int64_t>(43));
        QVERIFY(!g.vertex(0).autograd->firstBackwardNodeBytes);
        QCOMPARE(g.vertex(1).autograd->firstBackwardNodeBytes, std::optional<std::int64_t>(29));
        QVERIFY(!g.vertex(0).autograd->backwardWorkspacePartlyReleasedBytes);  // absent: no third measure
        QVERIFY(!g.vertex(0).autograd->copiedStaticsForwardWorkspaceBytes);
        QCOMPARE(g.vertex(1).autograd->copiedStaticsForwardWorkspaceBytes, std::optional<std::int64_t>(37));
        QCOMPARE(g.vertex(1).autograd->backwardWorkspacePartlyReleasedBytes, std::optional<std::int64_t>(31));
        QCOMPARE(g.vertex(1).autograd->backwardWorkspaceHeldInputs, std::vector<std::string>{"a"});
        QVERIFY(g.vertex(0).requiresGrad && !g.vertex(1).requiresGrad);  // absent: tracked
        QVERIFY(!g.vertex(0).autograd->checkpointedForwardWorkspaceBytes);
        QCOMPARE(g.vertex(1).autograd->checkpointedForwardWorkspaceBytes, std::optional<std::int64_t>(11));
        QVERIFY(!g.vertex(0).autograd->savesOther && g.vertex(1).autograd->savesOther);
        QCOMPARE(g.vertex(1).autograd->passesGradientTo, std::vector<std::string>{"a"});
        QCOMPARE(g.vertex(1).autograd->passesGradientViewTo, std::vector<std::string>{"a"});
        QVERIFY(g.vertex(0).autograd->passesGradientViewTo.empty());
        QVERIFY(g.vertex(0).autograd->slicesGradientTo.empty());
        QCOMPARE(g.vertex(1).autograd->slicesGradientTo, std::vector<std::string>{"a"});
        QVERIFY(g.vertex(0).autograd->readsWithoutGradient.empty());  // absent: every input gets a gradient
        QCOMPARE(g.vertex(1).autograd->readsWithoutGradient, std::vector<std::string>{"a"});
        QCOMPARE(g.vertex(0).autograd->staticGradientBytes, std::int64_t(0));
        QCOMPARE(g.vertex(1).autograd->staticGradientBytes, std::int64_t(13));
        QVERIFY(g.vertex(0).autograd->staticGradientUntil.empty());  // absent: held to the backward's end
        QCOMPARE(g.vertex(1).autograd->staticGradientUntil, std::string("a"));
        QVERIFY(!g.vertex(0).autograd->slicesGradientToStatics && g.vertex(1).autograd->slicesGradientToStatics);
        QCOMPARE(g.vertex(0).autograd->staticValues,
                 (std::vector<StaticValue>{{31, 27, 3, {"b"}}, {5, 0, 0, {}}}));  // absent: nothing saved, no reader
        QVERIFY(g.vertex(1).autograd->staticValues.empty());  // absent: no static outlives the vertex
        QCOMPARE(g.vertex(0).autograd->tiedParameterBytes, std::int64_t(0));
        QCOMPARE(g.vertex(1).autograd->tiedParameterBytes, std::int64_t(21));
        QCOMPARE(g.vertex(1).autograd->tiedParameterUntil, std::string("a"));
        QVERIFY(!g.vertex(0).output && g.vertex(1).output);  // absent: not returned
        QVERIFY(!g.vertex(0).drawsRandom && g.vertex(1).drawsRandom);  // absent: draws nothing
        const Graph back = parseGraphJson(toGraphJson(g), "back.json");
        for (VertexIndex v = 0; v < 2; ++v)
            QVERIFY(back.vertex(v) == g.vertex(v));
    }

    void outputTensorsRoundTrip()
    {
        // P52: absent means one tensor (or all read and saved alike); a list survives a round trip.
        const Graph g = parse(R"({"vertices": [{"id": "x", "bytes": 1},
            {"id": "p", "bytes": 300, "saved_by": ["p", "c", "u"], "tensors": [{"bytes": 100, "read_by": ["c"], "saved_by": ["c"]},
                {"bytes": 200, "read_by": ["u"], "saved_by": ["p", "u"]}]},
            {"id": "c", "bytes": 10}, {"id": "u", "bytes": 10}],
            "edges": [{"from": "x", "to": "p"}, {"from": "p", "to": "c"}, {"from": "p", "to": "u"}, {"from": "c", "to": "u"}]})");
        QVERIFY(g.vertex(*g.find("x")).autograd->tensors.empty());
        const std::vector<OutputTensor> expected{{100, {"c"}, {"c"}}, {200, {"u"}, {"p", "u"}}};
        QCOMPARE(g.vertex(*g.find("p")).autograd->tensors, expected);
        const Graph back = parseGraphJson(toGraphJson(g), "back.json");
        QCOMPARE(back.vertex(*back.find("p")).autograd->tensors, expected);
    }

    void gradientGroupsRoundTrip()
    {
        // P53: groups of inputs given one gradient tensor; absent means none.
        const Graph g = parse(R"({"vertices": [{"id": "x", "bytes": 1}, {"id": "a", "bytes": 4}, {"id": "b", "bytes": 4},
            {"id": "c", "bytes": 4, "forms_one_gradient_for": [["a", "b"]]}],
            "edges": [{"from": "x", "to": "a"}, {"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})");
        QVERIFY(g.vertex(*g.find("b")).autograd->formsOneGradientFor.empty());
        const std::vector<std::vector<std::string>> expected{{"a", "b"}};
        QCOMPARE(g.vertex(*g.find("c")).autograd->formsOneGradientFor, expected);
        const Graph back = parseGraphJson(toGraphJson(g), "back.json");
        QCOMPARE(back.vertex(*back.find("c")).autograd->formsOneGradientFor, expected);
    }

    void weightGradientSumRoundTrip()
    {
        // P59: a reader of weights another vertex owns; absent means none.
        const Graph g = parse(R"({"vertices": [{"id": "x", "bytes": 1}, {"id": "r", "bytes": 4, "adds_weight_gradient_to": "o",
            "shared_weight_gradient_bytes": 12, "shared_weight_sum_bytes": 11}, {"id": "o", "bytes": 4, "parameter_bytes": 16}],
            "edges": [{"from": "x", "to": "r"}, {"from": "r", "to": "o"}]})");
        for (const Graph& read : {g, parseGraphJson(toGraphJson(g), "back.json")}) {
            const AutogradFacts& r = *read.vertex(*read.find("r")).autograd;
            QCOMPARE(r.addsWeightGradientTo, std::string("o"));
            QCOMPARE(r.sharedWeightGradientBytes, std::int64_t(12));
            QCOMPARE(r.sharedWeightSumBytes, std::int64_t(11));
            QVERIFY(read.vertex(*read.find("o")).autograd->addsWeightGradientTo.empty());
        }
    }

    void batchScaledRoundTrip()
    {
        // Absent means true (graphs from before batch recording); only false is written.
        const Graph g = parse(R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "batch_scaled": false},
            {"id": "c", "bytes": 1, "batch_scaled": true}], "edges": [{"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})");
        QVERIFY(g.vertex(0).batchScaled);
        QVERIFY(!g.vertex(1).batchScaled);
        QVERIFY(g.vertex(2).batchScaled);
        const std::string text = toGraphJson(g);
        QCOMPARE(nlohmann::json::parse(text)["vertices"][1]["batch_scaled"], nlohmann::json(false));
        QVERIFY(!nlohmann::json::parse(text)["vertices"][2].contains("batch_scaled"));
        const Graph back = parseGraphJson(text, "back.json");
        for (VertexIndex v = 0; v < 3; ++v)
            QVERIFY(back.vertex(v) == g.vertex(v));
    }

    void onlyRequiredFields()
    {
        Graph g = parse(R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 2}], "edges": [{"from": "a", "to": "b"}]})");
        QCOMPARE(g.vertexCount(), 2);
        QVERIFY(!g.vertex(0).shape);
        QVERIFY(!g.vertex(0).compute);
        // A vertex without the pytorch model's fields takes no room for them (1M-vertex files).
        QVERIFY(!g.vertex(0).autograd.written() && !g.vertex(1).autograd.written());
    }

    void roundTripIsLossless_data()
    {
        QTest::addColumn<QString>("file");
        for (const QString& f : QDir(test::sourcePath("resources/examples")).entryList({"*.json"}))
            QTest::newRow(qPrintable(f)) << test::sourcePath("resources/examples/" + f);
    }

    void roundTripIsLossless()
    {
        QFETCH(QString, file);
        Graph first = readGraphFile(file.toStdString());
        QTemporaryDir dir;
        const std::string out = dir.filePath("out.json").toStdString();
        writeGraphFile(out, first);
        Graph second = readGraphFile(out);
        QCOMPARE(second.name(), first.name());
        QVERIFY(second.vertices() == first.vertices());
        QVERIFY(second.edges() == first.edges());
        QVERIFY(second.metadata() == first.metadata());
        QCOMPARE(toGraphJson(second), toGraphJson(first));
    }

    // Edges of string members skip the json value; edges with other members do not. Both read alike.
    void edgesReadAlikeWhateverTheirMembers()
    {
        Graph g = parse(R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 2}, {"id": "c", "bytes": 3}],
            "edges": [{"op": "mm", "from": "a", "to": "b", "note": "x"}, {"weight": 2.5, "from": "b", "to": "c", "op": "add"},
                      {"from": "a", "tags": ["t"], "to": "c"}]})");
        QCOMPARE(g.edgeCount(), 3);
        QCOMPARE(g.vertex(g.edges()[0].from).id, std::string("a"));
        QCOMPARE(g.vertex(g.edges()[0].to).id, std::string("b"));
        QCOMPARE(g.edges()[0].op, std::string("mm"));
        QCOMPARE(g.vertex(g.edges()[1].to).id, std::string("c"));
        QCOMPARE(g.edges()[1].op, std::string("add"));
        QCOMPARE(g.vertex(g.edges()[2].from).id, std::string("a"));
        QCOMPARE(g.edges()[2].op, std::string());
    }

    void virtualVerticesAreNotWritten()
    {
        Graph g = test::makeGraph({1, 1, 1}, {{0, 2}, {1, 2}});
        QVERIFY(g.hasVirtualVertices());
        Graph back = parse(toGraphJson(g).c_str());
        QCOMPARE(back.vertexCount(), g.vertexCount());
        QCOMPARE(back.edgeCount(), g.edgeCount());
        QVERIFY(back.vertices() == g.vertices());
    }

    void errorsNameFileAndPointer_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << "" << "test.json: the file is empty";
        QTest::newRow("whitespace") << "  \n" << "test.json: the file is empty";
        QTest::newRow("truncated") << "{\"vertices\": [{\"id\": \"a\", \"by" << "test.json: /vertices/0: not valid JSON";
        QTest::newRow("binary") << QString::fromLatin1("\x7f" "ELF\x02\x01\x01") << "test.json: not valid JSON";
        QTest::newRow("not an object") << "[1, 2]" << "test.json: expected an object, got an array";
        QTest::newRow("no vertices") << R"({"edges": []})" << "test.json: /vertices: missing required field";
        QTest::newRow("missing bytes") << R"({"vertices": [{"id": "a"}]})" << "test.json: /vertices/0/bytes: missing";
        QTest::newRow("missing id") << R"({"vertices": [{"bytes": 1}]})" << "test.json: /vertices/0/id: missing";
        QTest::newRow("id wrong type") << R"({"vertices": [{"id": 3, "bytes": 1}]})"
                                       << "test.json: /vertices/0/id: expected a string, got an integer";
        QTest::newRow("string bytes") << R"({"vertices": [{"id": "a", "bytes": "12"}]})"
                                      << "test.json: /vertices/0/bytes: expected an integer, got a string";
        QTest::newRow("fractional bytes") << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 2.5}]})"
                                          << "test.json: /vertices/1/bytes: expected an integer, got the fractional";
        QTest::newRow("negative bytes") << R"({"vertices": [{"id": "a", "bytes": -1}]})"
                                        << "test.json: /vertices/0/bytes: bytes must be >= 0";
        QTest::newRow("huge bytes") << R"({"vertices": [{"id": "a", "bytes": 18446744073709551615}]})"
                                    << "test.json: /vertices/0/bytes: value 18446744073709551615 does not fit";
        QTest::newRow("overflowing total")
            << R"({"vertices": [{"id": "a", "bytes": 9223372036854775807}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/0/bytes: the graph's byte counts add up to more than 2^53 bytes";
        QTest::newRow("bad shape") << R"({"vertices": [{"id": "a", "bytes": 1, "shape": [1, "x"]}]})"
                                   << "test.json: /vertices/0/shape/1: expected an integer";
        QTest::newRow("edge to unknown") << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
                                         << "test.json: /edges/0/to: edge to unknown vertex \"b\"";
        QTest::newRow("edge missing from") << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [{"to": "a"}]})"
                                           << "test.json: /edges/0/from: missing required field";
        QTest::newRow("cycle")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "a"}]})"
            << "test.json: the graph has a cycle: a -> b -> a";
        QTest::newRow("saved_by not a successor")
            << R"({"vertices": [{"id": "a", "bytes": 1, "saved_by": ["a", "c"]}, {"id": "b", "bytes": 1}, {"id": "c", "bytes": 1}], "edges": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]})"
            << "test.json: /vertices/0/saved_by/1: \"c\" is neither the vertex nor one of its successors";
        QTest::newRow("saved_by not strings") << R"({"vertices": [{"id": "a", "bytes": 1, "saved_by": [1]}]})"
                                              << "test.json: /vertices/0/saved_by/0: expected a string";
        QTest::newRow("batch_scaled not a boolean") << R"({"vertices": [{"id": "a", "bytes": 1, "batch_scaled": 1}]})"
                                                    << "test.json: /vertices/0/batch_scaled: expected a boolean";
        QTest::newRow("requires_grad not a boolean") << R"({"vertices": [{"id": "a", "bytes": 1, "requires_grad": "no"}]})"
                                                     << "test.json: /vertices/0/requires_grad: expected a boolean";
        QTest::newRow("draws_random not a boolean") << R"({"vertices": [{"id": "a", "bytes": 1, "draws_random": "yes"}]})"
                                                    << "test.json: /vertices/0/draws_random: expected a boolean";
        QTest::newRow("output not a boolean") << R"({"vertices": [{"id": "a", "bytes": 1, "output": 1}]})"
                                              << "test.json: /vertices/0/output: expected a boolean";
        QTest::newRow("negative workspace") << R"({"vertices": [{"id": "a", "bytes": 1, "backward_workspace_bytes": -1}]})"
                                            << "test.json: /vertices/0/backward_workspace_bytes: backward_workspace_bytes must be >= 0";
        QTest::newRow("slices_gradient_to not an input")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "slices_gradient_to": ["b"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/slices_gradient_to/0: \"b\" is not an input of the vertex";
        QTest::newRow("passes_gradient_to not an input")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "passes_gradient_to": ["b"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/passes_gradient_to/0: \"b\" is not an input of the vertex";
        QTest::newRow("passes_gradient_view_to not passed")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "passes_gradient_view_to": ["a"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/passes_gradient_view_to/0: \"a\" is not in the vertex's passes_gradient_to";
        QTest::newRow("reads_without_gradient not an input")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "reads_without_gradient": ["b"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/reads_without_gradient/0: \"b\" is not an input of the vertex";
        QTest::newRow("negative checkpointed forward workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "checkpointed_forward_workspace_bytes": -3}]})"
            << "test.json: /vertices/0/checkpointed_forward_workspace_bytes: checkpointed_forward_workspace_bytes must be >= 0";
        QTest::newRow("negative static gradient")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_gradient_bytes": -2}]})"
            << "test.json: /vertices/0/static_gradient_bytes: static_gradient_bytes must be >= 0";
        QTest::newRow("static_value_bytes negative")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_value_bytes": -4}]})"
            << "test.json: /vertices/0/static_value_bytes: static_value_bytes must be >= 0";
        QTest::newRow("static_values not an array")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_values": {"bytes": 2}}]})"
            << "test.json: /vertices/0/static_values: expected an array, got an object";
        QTest::newRow("static value without bytes")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_values": [{"readers": []}]}]})"
            << "test.json: /vertices/0/static_values/0/bytes: missing required field \"bytes\"";
        QTest::newRow("static value's saved_bytes above its bytes")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_values": [{"bytes": 2, "saved_bytes": 3}]}]})"
            << "test.json: /vertices/0/static_values/0/saved_bytes: saved_bytes must be between 0 and bytes (2), got 3";
        QTest::newRow("static value's remade_saved_bytes negative")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_values": [{"bytes": 2, "remade_saved_bytes": -1}]}]})"
            << "test.json: /vertices/0/static_values/0/remade_saved_bytes: remade_saved_bytes must be >= 0, got -1";
        QTest::newRow("static value's reader an earlier vertex")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "static_values": [{"bytes": 2, "readers": []}, {"bytes": 2, "readers": ["a"]}]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/static_values/1/readers/0: \"a\" is not a vertex after the vertex";
        QTest::newRow("static_values beside the older static_value_bytes")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_value_bytes": 2, "static_values": []}]})"
            << "test.json: /vertices/0/static_values: give static_values or the older static_value_bytes and static_value_readers, not both";
        QTest::newRow("older static_value_readers names an earlier vertex (reported as its static_values entry)")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "static_value_bytes": 2, "static_value_readers": ["a"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/static_values/0/readers/0: \"a\" is not a vertex after the vertex";
        QTest::newRow("static_value_readers not strings")
            << R"({"vertices": [{"id": "a", "bytes": 1, "static_value_readers": [3]}]})"
            << "test.json: /vertices/0/static_value_readers/0: expected a string, got an integer";
        QTest::newRow("static_gradient_until not a vertex")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "static_gradient_bytes": 2, "static_gradient_until": "z"}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/static_gradient_until: \"z\" is not a vertex";
        QTest::newRow("adds_weight_gradient_to not after the vertex")
            << R"({"vertices": [{"id": "a", "bytes": 1, "parameter_bytes": 4}, {"id": "b", "bytes": 1, "adds_weight_gradient_to": "a", "shared_weight_gradient_bytes": 4}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/adds_weight_gradient_to: \"a\" is not a vertex after \"b\"";
        QTest::newRow("adds_weight_gradient_to not a vertex")
            << R"({"vertices": [{"id": "a", "bytes": 1, "adds_weight_gradient_to": "z"}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/0/adds_weight_gradient_to: \"z\" is not a vertex after \"a\"";
        QTest::newRow("shared_weight_sum_bytes without adds_weight_gradient_to")
            << R"({"vertices": [{"id": "a", "bytes": 1, "shared_weight_sum_bytes": 3}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/0/adds_weight_gradient_to: shared_weight_gradient_bytes and shared_weight_sum_bytes need adds_weight_gradient_to";
        QTest::newRow("negative shared_weight_gradient_bytes")
            << R"({"vertices": [{"id": "a", "bytes": 1, "adds_weight_gradient_to": "b", "shared_weight_gradient_bytes": -1}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/0/shared_weight_gradient_bytes: shared_weight_gradient_bytes must be >= 0";
        QTest::newRow("tied_parameter_until not before the vertex")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "parameter_bytes": 4, "tied_parameter_bytes": 2, "tied_parameter_until": "b"}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/tied_parameter_until: \"b\" is not a vertex before \"b\"";
        QTest::newRow("tied_parameter_until not a vertex")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "parameter_bytes": 4, "tied_parameter_bytes": 2, "tied_parameter_until": "z"}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/tied_parameter_until: \"z\" is not a vertex before \"b\"";
        QTest::newRow("tied parameters beyond the vertex's")
            << R"({"vertices": [{"id": "a", "bytes": 1, "parameter_bytes": 4, "tied_parameter_bytes": 5}]})"
            << "test.json: /vertices/0/tied_parameter_bytes: tied_parameter_bytes (5) must be at most parameter_bytes (4)";
        QTest::newRow("negative optimizer state")
            << R"({"metadata": {"optimizer": "Adam", "optimizer_state_bytes": -8, "optimizer_step_workspace_bytes": 0}, "vertices": [{"id": "a", "bytes": 1}]})"
            << "test.json: /metadata/optimizer_state_bytes: must be a non-negative integer of at most 2^53, got -8";
        QTest::newRow("optimizer without its step's scratch")
            << R"({"metadata": {"optimizer": "Adam", "optimizer_state_bytes": 8}, "vertices": [{"id": "a", "bytes": 1}]})"
            << "test.json: /metadata/optimizer_step_workspace_bytes: missing (an export with --optimizer writes optimizer, optimizer_state_bytes and optimizer_step_workspace_bytes)";
        QTest::newRow("negative released workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "backward_workspace_released_bytes": -3}]})"
            << "test.json: /vertices/0/backward_workspace_released_bytes: backward_workspace_released_bytes must be >= 0";
        QTest::newRow("negative partly released workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "backward_workspace_partly_released_bytes": -3, "backward_workspace_held_inputs": ["a"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/backward_workspace_partly_released_bytes: backward_workspace_partly_released_bytes must be >= 0";
        QTest::newRow("tensors not adding up")
            << R"({"vertices": [{"id": "a", "bytes": 8, "tensors": [{"bytes": 3}, {"bytes": 4}]}]})"
            << "test.json: /vertices/0/tensors: the tensors' bytes add up to 7, not the vertex's bytes (8)";
        QTest::newRow("negative tensor")
            << R"({"vertices": [{"id": "a", "bytes": 8, "tensors": [{"bytes": -3}, {"bytes": 11}]}]})"
            << "test.json: /vertices/0/tensors/0/bytes: value -3 is outside 0..9007199254740992";
        QTest::newRow("tensors not an array")
            << R"({"vertices": [{"id": "a", "bytes": 8, "tensors": {"bytes": 8}}]})"
            << "test.json: /vertices/0/tensors: expected an array, got an object";
        QTest::newRow("tensor read by no successor")
            << R"({"vertices": [{"id": "a", "bytes": 8, "tensors": [{"bytes": 8, "read_by": ["a"]}]}]})"
            << "test.json: /vertices/0/tensors/0/read_by/0: \"a\" is not a successor of the vertex";
        QTest::newRow("tensor saved by what does not save the vertex")
            << R"({"vertices": [{"id": "a", "bytes": 8, "saved_by": [], "tensors": [{"bytes": 8, "saved_by": ["b"]}]}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/0/tensors/0/saved_by/0: \"b\" is not in the vertex's saved_by";
        QTest::newRow("gradient group not an input")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}, {"id": "c", "bytes": 1, "forms_one_gradient_for": [["a", "c"]]}], "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})"
            << "test.json: /vertices/2/forms_one_gradient_for/0/1: \"c\" is not an input of the vertex";
        QTest::newRow("gradient group of one")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}, {"id": "c", "bytes": 1, "forms_one_gradient_for": [["a"]]}], "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})"
            << "test.json: /vertices/2/forms_one_gradient_for/0: a group of inputs that share one gradient names at least two";
        QTest::newRow("input in two gradient groups")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}, {"id": "c", "bytes": 1, "forms_one_gradient_for": [["a", "b"], ["b", "a"]]}], "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})"
            << "test.json: /vertices/2/forms_one_gradient_for/1/0: \"b\" is named twice";
        QTest::newRow("gradient groups not arrays")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}, {"id": "c", "bytes": 1, "forms_one_gradient_for": ["a", "b"]}], "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})"
            << "test.json: /vertices/2/forms_one_gradient_for/0: expected an array of strings, got a string";
        QTest::newRow("gradient group of numbers")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}, {"id": "c", "bytes": 1, "forms_one_gradient_for": [[1, 2]]}], "edges": [{"from": "a", "to": "b"}, {"from": "a", "to": "c"}, {"from": "b", "to": "c"}]})"
            << "test.json: /vertices/2/forms_one_gradient_for/0/0: expected a string, got an integer";
        QTest::newRow("negative gradient bytes")
            << R"({"vertices": [{"id": "a", "bytes": 8, "gradient_bytes": -4}]})"
            << "test.json: /vertices/0/gradient_bytes: gradient_bytes must be >= 0";
        QTest::newRow("gradient larger than its tensor")
            << R"({"vertices": [{"id": "a", "bytes": 8, "gradient_bytes": 12}]})"
            << "test.json: /vertices/0/gradient_bytes: gradient_bytes must be between 1 and bytes (8), got 12";
        QTest::newRow("gradient of nothing tracked")
            << R"({"vertices": [{"id": "a", "bytes": 8, "gradient_bytes": 0}]})"
            << "test.json: /vertices/0/gradient_bytes: gradient_bytes must be between 1 and bytes (8), got 0";
        QTest::newRow("gradient bytes not a number")
            << R"({"vertices": [{"id": "a", "bytes": 8, "gradient_bytes": "4"}]})"
            << "test.json: /vertices/0/gradient_bytes: expected an integer, got a string";
        QTest::newRow("negative copied statics' forward workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "copied_statics_forward_workspace_bytes": -5}]})"
            << "test.json: /vertices/0/copied_statics_forward_workspace_bytes: copied_statics_forward_workspace_bytes must be >= 0";
        QTest::newRow("partly released workspace without its held inputs")
            << R"({"vertices": [{"id": "a", "bytes": 1, "backward_workspace_partly_released_bytes": 3}]})"
            << "test.json: /vertices/0/backward_workspace_partly_released_bytes: give backward_workspace_partly_released_bytes and backward_workspace_held_inputs together";
        QTest::newRow("held inputs without their measure")
            << R"({"vertices": [{"id": "a", "bytes": 1, "backward_workspace_held_inputs": []}]})"
            << "test.json: /vertices/0/backward_workspace_held_inputs: give backward_workspace_partly_released_bytes and backward_workspace_held_inputs together";
        QTest::newRow("held inputs not an array")
            << R"({"vertices": [{"id": "a", "bytes": 1, "backward_workspace_partly_released_bytes": 3, "backward_workspace_held_inputs": "a"}]})"
            << "test.json: /vertices/0/backward_workspace_held_inputs: expected an array of strings, got a string";
        QTest::newRow("held input not an input")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1, "backward_workspace_partly_released_bytes": 3, "backward_workspace_held_inputs": ["b"]}], "edges": [{"from": "a", "to": "b"}]})"
            << "test.json: /vertices/1/backward_workspace_held_inputs/0: \"b\" is not an input of the vertex";
        QTest::newRow("negative leaf-inputs workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "leaf_inputs_backward_workspace_bytes": -3}]})"
            << "test.json: /vertices/0/leaf_inputs_backward_workspace_bytes: leaf_inputs_backward_workspace_bytes must be >= 0";
        QTest::newRow("negative released rise")
            << R"({"vertices": [{"id": "a", "bytes": 1, "backward_released_rise_bytes": -3}]})"
            << "test.json: /vertices/0/backward_released_rise_bytes: backward_released_rise_bytes must be >= 0";
        QTest::newRow("negative leaf-inputs rise")
            << R"({"vertices": [{"id": "a", "bytes": 1, "leaf_inputs_backward_rise_bytes": -3}]})"
            << "test.json: /vertices/0/leaf_inputs_backward_rise_bytes: leaf_inputs_backward_rise_bytes must be >= 0";
        QTest::newRow("negative engine workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "engine_backward_workspace_bytes": -3}]})"
            << "test.json: /vertices/0/engine_backward_workspace_bytes: engine_backward_workspace_bytes must be >= 0";
        QTest::newRow("negative released engine workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "engine_backward_workspace_released_bytes": -3}]})"
            << "test.json: /vertices/0/engine_backward_workspace_released_bytes: engine_backward_workspace_released_bytes must be >= 0";
        QTest::newRow("negative released engine rise")
            << R"({"vertices": [{"id": "a", "bytes": 1, "engine_backward_released_rise_bytes": -3}]})"
            << "test.json: /vertices/0/engine_backward_released_rise_bytes: engine_backward_released_rise_bytes must be >= 0";
        QTest::newRow("negative engine first-node workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "engine_first_node_bytes": -3}]})"
            << "test.json: /vertices/0/engine_first_node_bytes: engine_first_node_bytes must be >= 0";
        QTest::newRow("negative first-node workspace")
            << R"({"vertices": [{"id": "a", "bytes": 1, "first_backward_node_bytes": -3}]})"
            << "test.json: /vertices/0/first_backward_node_bytes: first_backward_node_bytes must be >= 0";
        QTest::newRow("wrong schema") << R"({"schema": "other", "vertices": []})" << "test.json: /schema: unknown schema";
        QTest::newRow("newer version") << R"({"schema": "checkpoint-explorer/graph", "version": 7, "vertices": []})"
                                       << "test.json: /version: unsupported version 7";
        // Vertices and edges are read while the file is parsed (StreamedArrays); what a file reports
        // must not depend on the order of its keys.
        QTest::newRow("schema after a bad edge")
            << R"({"edges": [{"from": 1, "to": "a"}], "vertices": [{"id": "a", "bytes": 1}], "schema": "other"})"
            << "test.json: /schema: unknown schema";
        QTest::newRow("bad vertex after a bad edge")
            << R"({"edges": [{"to": "a"}], "vertices": [{"id": "a", "bytes": 1}, {"id": "b"}]})"
            << "test.json: /vertices/1/bytes: missing required field";
        QTest::newRow("edges not an array") << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": {"from": "a"}})"
                                            << "test.json: /edges: expected an array, got an object";
        QTest::newRow("edge not an object") << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [["a", "b"]]})"
                                            << "test.json: /edges/0: expected an object, got an array";
        QTest::newRow("vertex not an object") << R"({"vertices": [{"id": "a", "bytes": 1}, 5]})"
                                              << "test.json: /vertices/1: expected an object, got an integer";
        QTest::newRow("duplicate key in an edge")
            << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [{"from": "a", "to": "a", "to": "b"}]})"
            << "test.json: /edges/0/to: duplicate key \"to\"";
        // An edge is read as a record of strings until a member is not a string; from there it is
        // read as json, and what it reports must be the same.
        QTest::newRow("edge op not a string")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b", "op": 5}]})"
            << "test.json: /edges/0/op: expected a string, got an integer";
        QTest::newRow("edge from null") << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [{"from": null, "to": "a"}]})"
                                        << "test.json: /edges/0/from: missing required field";
        QTest::newRow("edge member after a nested one")
            << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [{"from": "a", "meta": {"x": [1]}, "to": "b"}]})"
            << "test.json: /edges/0/to: edge to unknown vertex \"b\"";
        QTest::newRow("duplicate key after a nested one")
            << R"({"vertices": [{"id": "a", "bytes": 1}], "edges": [{"from": "a", "w": 1, "from": "b"}]})"
            << "test.json: /edges/0/from: duplicate key \"from\"";
        QTest::newRow("bad second edge")
            << R"({"vertices": [{"id": "a", "bytes": 1}, {"id": "b", "bytes": 1}], "edges": [{"from": "a", "to": "b"}, {"from": "a"}]})"
            << "test.json: /edges/1/to: missing required field";
        QTest::newRow("truncated edge") << "{\"vertices\": [{\"id\": \"a\", \"bytes\": 1}], \"edges\": [{\"from\": \"a\", \"to"
                                        << "test.json: /edges/0: not valid JSON";
        QTest::newRow("networkx missing cost")
            << R"({"nodes": [{"id": 0}], "links": []})" << "test.json: /nodes/0/out_cost: missing required field";
        QTest::newRow("networkx bad link")
            << R"({"nodes": [{"id": 0, "cost_ram": 1}], "links": [{"source": 0, "target": 5}]})"
            << "test.json: /links/0/target: edge to unknown vertex \"5\"";
    }

    void errorsNameFileAndPointer()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        try {
            parseGraphJson(text.toStdString(), "test.json");
            QFAIL("expected a GraphError");
        } catch (const GraphError& e) {
            QVERIFY2(QString::fromStdString(e.what()).startsWith(expected), e.what());
        }
    }

    void missingFileIsAnError()
    {
        try {
            readGraphFile("/nonexistent/graph.json");
            QFAIL("expected a GraphError");
        } catch (const GraphError& e) {
            QVERIFY2(QString(e.what()).startsWith("/nonexistent/graph.json: cannot open"), e.what());
        }
    }

    void publishedGraphs_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("vertices");  // including virtual source/sink, if any
        QTest::addColumn<int>("backward");
        if (!test::haveSharedData())
            QSKIP("../shared/data/checkmate-graphs is absent: skipping the published graphs");
        const QDir dir(test::sharedPath("data/checkmate-graphs"));
        for (const QString& f : dir.entryList({"*.json"})) {
            QTest::newRow(qPrintable(f)) << dir.filePath(f) << -1 << -1;
        }
    }

    void publishedGraphs()
    {
        QFETCH(QString, file);
        Graph g = readGraphFile(file.toStdString());
        QVERIFY(g.vertexCount() > 0);
        const bool train = file.contains("_train_");
        int backward = 0;
        for (const Vertex& v : g.vertices()) {
            backward += v.backward;
            QVERIFY(v.bytes >= 0);
        }
        QCOMPARE(backward > 0, train);
        if (file.contains("random_layered"))
            QVERIFY(g.metadata().count("parameter_bytes"));
        else
            QVERIFY(g.vertex(0).compute.has_value());
        // The README's counts for the forward graphs.
        if (file.contains("VGG16_256") && !train) {
            QCOMPARE(g.vertexCount(), 22);
            QCOMPARE(g.edgeCount(), 21);
            QVERIFY(g.isChain());
        }
        if (file.contains("ResNet50_256") && !train) {
            QCOMPARE(g.edgeCount(), 191);
            QVERIFY(!g.isChain());
        }
        // A round trip through our format keeps everything.
        Graph back = parseGraphJson(toGraphJson(g));
        QVERIFY(back.vertices() == g.vertices());
    }
};

QTEST_GUILESS_MAIN(GraphJsonTest)
#include "tst_graphjson.moc"
