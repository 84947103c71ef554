#include "TransformerGraph.h"

#include "graph/GraphBuilder.h"

#include <string>
#include <vector>

namespace ckpt::test {

namespace {

class OpGraph {
public:
    // A vertex for one operator in `module`, reading `inputs`; returns its id.
    std::string op(const std::string& module, const std::string& kind, const std::vector<std::string>& inputs,
                   std::int64_t bytes = activation)
    {
        Vertex v;
        v.name = kind + "_" + std::to_string(m_count++);
        v.id = module.empty() ? v.name : module + "/" + v.name;
        v.op = kind;
        v.module = module;
        v.bytes = bytes;
        v.dtype = "float32";
        m_builder.addVertex(v);
        for (const std::string& in : inputs)
            m_builder.addEdge(in, v.id);
        return v.id;
    }

    std::string linear(const std::string& module, const std::string& x, std::int64_t bytes = activation)
    {
        return op(module, "add", {op(module, "matmul", {x}, bytes)}, bytes);
    }

    std::string layerNorm(const std::string& m, const std::string& x)
    {
        const std::string centred = op(m, "sub", {x, op(m, "mean", {x}, activation / 768)});
        const std::string variance = op(m, "mean", {op(m, "pow", {centred})}, activation / 768);
        const std::string scaled = op(m, "mul", {centred, op(m, "rsqrt", {op(m, "add", {variance}, activation / 768)}, activation / 768)});
        return op(m, "add", {op(m, "mul", {scaled})});
    }

    std::string attention(const std::string& m, const std::string& x)
    {
        const std::string qkv = linear(m + ".c_attn", x, 3 * activation);
        std::vector<std::string> heads;
        for (int i = 0; i < 3; ++i)
            heads.push_back(op(m, "transpose", {op(m, "view", {op(m, "split", {qkv})})}));
        const std::string scores = op(m, "matmul", {heads[0], heads[1]}, attentionScores);
        const std::string weights =
            op(m, "dropout", {op(m, "softmax", {op(m, "masked_fill", {op(m, "div", {scores}, attentionScores)}, attentionScores)}, attentionScores)},
               attentionScores);
        const std::string merged = op(m, "view", {op(m, "transpose", {op(m, "matmul", {weights, heads[2]})})});
        return op(m, "dropout", {linear(m + ".c_proj", merged)});
    }

    std::string mlp(const std::string& m, const std::string& x)
    {
        const std::string fc = linear(m + ".c_fc", x, 4 * activation);
        const std::string cubic = op(m, "mul", {op(m, "pow", {fc}, 4 * activation)}, 4 * activation);
        const std::string inner = op(m, "mul", {op(m, "add", {fc, cubic}, 4 * activation)}, 4 * activation);
        const std::string gate = op(m, "add", {op(m, "tanh", {inner}, 4 * activation)}, 4 * activation);
        const std::string gelu = op(m, "mul", {fc, op(m, "mul", {gate}, 4 * activation)}, 4 * activation);
        return op(m, "dropout", {linear(m + ".c_proj", gelu)});
    }

    Graph build() const { return m_builder.build(); }
    GraphBuilder& builder() { return m_builder; }

    static constexpr std::int64_t activation = std::int64_t(8) * 1024 * 768 * 4;  // batch 8, 1024 tokens, 768 wide
    static constexpr std::int64_t attentionScores = std::int64_t(8) * 12 * 1024 * 1024 * 4;

private:
    GraphBuilder m_builder;
    int m_count = 0;
};

}  // namespace

Graph makeTransformerOpGraph(int layers)
{
    OpGraph g;
    g.builder().setName("GPT-2-like transformer, " + std::to_string(layers) + " layers, operator granularity");
    const std::string tokens = g.op("", "input", {}, std::int64_t(8) * 1024 * 8);
    std::string x = g.op("transformer.drop", "dropout",
                         {g.op("transformer", "add", {g.op("transformer.wte", "embedding", {tokens}), g.op("transformer.wpe", "embedding", {tokens})})});
    for (int i = 0; i < layers; ++i) {
        const std::string layer = "transformer.h." + std::to_string(i);
        const std::string attended = g.op(layer, "add", {x, g.attention(layer + ".attn", g.layerNorm(layer + ".ln_1", x))});
        x = g.op(layer, "add", {attended, g.mlp(layer + ".mlp", g.layerNorm(layer + ".ln_2", attended))});
    }
    const std::string logits = g.op("lm_head", "matmul", {g.layerNorm("transformer.ln_f", x)}, std::int64_t(8) * 1024 * 50257 * 4);
    g.op("", "cross_entropy", {logits, tokens}, 4);
    return g.build();
}

}  // namespace ckpt::test
