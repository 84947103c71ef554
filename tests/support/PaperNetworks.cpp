#include "PaperNetworks.h"

#include "graph/GraphBuilder.h"

#include <string>

namespace ckpt::test {

namespace {

// Adds tensors one by one; each names the tensors it is computed from.
class Net {
public:
    explicit Net(std::string name) { m_builder.setName(std::move(name)); }

    std::string add(const std::string& op, std::int64_t channels, std::int64_t size, const std::vector<std::string>& from)
    {
        Vertex v;
        v.id = op + std::to_string(m_count++);
        v.name = v.id;
        v.op = op;
        v.bytes = 4 * channels * size * size;
        v.shape = std::vector<std::int64_t>{1, channels, size, size};
        v.dtype = "float32";
        m_builder.addVertex(v);
        for (const std::string& f : from)
            m_builder.addEdge(f, v.id, op);
        return v.id;
    }
    Graph build() const { return m_builder.build(); }

private:
    GraphBuilder m_builder;
    int m_count = 0;
};

// 0 means a max-pool.
Graph vggFrom(const std::string& name, const std::vector<int>& config)
{
    Net net(name);
    std::string at = net.add("input", 3, 224, {});
    std::int64_t size = 224, channels = 3;
    for (int c : config) {
        if (c == 0) {
            size /= 2;
            at = net.add("maxpool", channels, size, {at});
        } else {
            channels = c;
            at = net.add("conv_relu", channels, size, {at});
        }
    }
    at = net.add("fc", 4096, 1, {at});
    at = net.add("fc", 4096, 1, {at});
    net.add("fc", 1000, 1, {at});
    return net.build();
}

struct Stage {
    std::int64_t channels, size;
    int blocks;
};

std::vector<Stage> stagesFor(int blocks, int stages = 4)
{
    std::vector<Stage> out;
    for (int s = 0; s < stages; ++s)
        out.push_back({64ll << s, 56 >> s, blocks / stages + (s < blocks % stages ? 1 : 0)});
    return out;
}

Graph resnetFrom(const std::string& name, const std::vector<Stage>& stages, bool bottleneck)
{
    Net net(name);
    std::string at = net.add("input", 3, 224, {});
    at = net.add("conv", 64, 112, {at});
    at = net.add("bn_relu", 64, 112, {at});
    at = net.add("maxpool", 64, 56, {at});
    std::int64_t channels = 64;
    for (const Stage& stage : stages) {
        const std::int64_t out = bottleneck ? 4 * stage.channels : stage.channels;
        for (int b = 0; b < stage.blocks; ++b) {
            std::string skip = at;
            if (b == 0 && channels != out) {
                skip = net.add("downsample_conv", out, stage.size, {at});
                skip = net.add("downsample_bn", out, stage.size, {skip});
            }
            std::string x = net.add("conv", stage.channels, stage.size, {at});
            x = net.add("bn_relu", stage.channels, stage.size, {x});
            x = net.add("conv", stage.channels, stage.size, {x});
            if (bottleneck) {
                x = net.add("bn_relu", stage.channels, stage.size, {x});
                x = net.add("conv", out, stage.size, {x});
            }
            x = net.add("bn", out, stage.size, {x});
            at = net.add("add_relu", out, stage.size, {x, skip});
            channels = out;
        }
    }
    net.add("avgpool_fc", 1000, 1, {at});
    return net.build();
}

Graph densenetFrom(const std::string& name, const std::vector<int>& blocks, std::int64_t growth, std::int64_t init)
{
    Net net(name);
    std::string at = net.add("input", 3, 224, {});
    at = net.add("conv", init, 112, {at});
    at = net.add("bn_relu", init, 112, {at});
    at = net.add("maxpool", init, 56, {at});
    std::int64_t channels = init, size = 56;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        for (int l = 0; l < blocks[b]; ++l) {
            std::string x = net.add("bn_relu", channels, size, {at});
            x = net.add("conv1x1", 4 * growth, size, {x});
            x = net.add("bn_relu", 4 * growth, size, {x});
            x = net.add("conv3x3", growth, size, {x});
            channels += growth;
            at = net.add("concat", channels, size, {at, x});
        }
        if (b + 1 < blocks.size()) {
            at = net.add("bn_relu", channels, size, {at});
            channels /= 2;
            at = net.add("conv1x1", channels, size, {at});
            size /= 2;
            at = net.add("avgpool", channels, size, {at});
        }
    }
    at = net.add("bn_relu", channels, size, {at});
    at = net.add("avgpool", channels, 1, {at});
    net.add("fc", 1000, 1, {at});
    return net.build();
}

}  // namespace

Graph alexnet()
{
    Net net("alexnet");
    std::string at = net.add("input", 3, 224, {});
    at = net.add("conv_relu", 64, 55, {at});
    at = net.add("maxpool", 64, 27, {at});
    at = net.add("conv_relu", 192, 27, {at});
    at = net.add("maxpool", 192, 13, {at});
    at = net.add("conv_relu", 384, 13, {at});
    at = net.add("conv_relu", 256, 13, {at});
    at = net.add("conv_relu", 256, 13, {at});
    at = net.add("maxpool", 256, 6, {at});
    at = net.add("fc", 4096, 1, {at});
    at = net.add("fc", 4096, 1, {at});
    net.add("fc", 1000, 1, {at});
    return net.build();
}

Graph vgg(int depth)
{
    const int convs[4][5] = {{1, 1, 2, 2, 2}, {2, 2, 2, 2, 2}, {2, 2, 3, 3, 3}, {2, 2, 4, 4, 4}};
    const int row = depth == 11 ? 0 : depth == 13 ? 1 : depth == 16 ? 2 : 3;
    std::vector<int> config;
    const int widths[5] = {64, 128, 256, 512, 512};
    for (int s = 0; s < 5; ++s) {
        for (int k = 0; k < convs[row][s]; ++k)
            config.push_back(widths[s]);
        config.push_back(0);
    }
    return vggFrom("vgg" + std::to_string(depth), config);
}

Graph resnet(int depth)
{
    const bool bottleneck = depth >= 50;
    std::vector<int> blocks = depth == 18    ? std::vector<int>{2, 2, 2, 2}
                              : depth == 34  ? std::vector<int>{3, 4, 6, 3}
                              : depth == 50  ? std::vector<int>{3, 4, 6, 3}
                              : depth == 101 ? std::vector<int>{3, 4, 23, 3}
                                             : std::vector<int>{3, 8, 36, 3};
    std::vector<Stage> stages;
    for (int s = 0; s < 4; ++s)
        stages.push_back({64ll << s, 56 >> s, blocks[s]});
    return resnetFrom("resnet" + std::to_string(depth), stages, bottleneck);
}

Graph densenet(int depth)
{
    if (depth == 161)
        return densenetFrom("densenet161", {6, 12, 36, 24}, 48, 96);
    std::vector<int> blocks = depth == 121 ? std::vector<int>{6, 12, 24, 16}
                              : depth == 169 ? std::vector<int>{6, 12, 32, 32}
                                             : std::vector<int>{6, 12, 48, 32};
    return densenetFrom("densenet" + std::to_string(depth), blocks, 32, 64);
}

Graph inceptionLike(int modules)
{
    Net net("inception-like");
    std::string at = net.add("input", 3, 299, {});
    at = net.add("conv", 32, 149, {at});
    at = net.add("conv", 64, 147, {at});
    at = net.add("maxpool", 64, 73, {at});
    std::int64_t size = 35, channels = 192;
    at = net.add("conv", channels, size, {at});
    for (int m = 0; m < modules; ++m) {
        const std::int64_t c = channels / 4;
        std::string b1 = net.add("conv1x1", c, size, {at});
        std::string b2 = net.add("conv3x3", c, size, {net.add("conv1x1", c / 2, size, {at})});
        std::string b3 = net.add("conv1x1", c / 2, size, {at});
        b3 = net.add("conv3x3", c, size, {net.add("conv3x3", c, size, {b3})});
        std::string b4 = net.add("conv1x1", c, size, {net.add("avgpool", channels, size, {at})});
        at = net.add("concat", 4 * c, size, {b1, b2, b3, b4});
        if (m % 3 == 2 && size > 5) {
            size /= 2;
            channels *= 2;
            at = net.add("reduction", channels, size, {at});
        }
    }
    at = net.add("avgpool", channels, 1, {at});
    net.add("fc", 1000, 1, {at});
    return net.build();
}

Graph resnetLike(int blocks, bool bottleneck)
{
    return resnetFrom(std::string("resnet-like-") + (bottleneck ? "bottleneck-" : "basic-") + std::to_string(blocks),
                      stagesFor(blocks), bottleneck);
}

Graph densenetLike(int blocks, int layersPerBlock)
{
    return densenetFrom("densenet-like-" + std::to_string(blocks) + "x" + std::to_string(layersPerBlock),
                        std::vector<int>(blocks, layersPerBlock), 32, 64);
}

}  // namespace ckpt::test
