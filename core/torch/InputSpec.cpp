#include "torch/InputSpec.h"

#include "graph/GraphBuilder.h"

#include <nlohmann/json.hpp>

#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>

namespace ckpt::torchx {

namespace {

struct DtypeInfo {
    std::int64_t bytes;
    bool isFloat;
};

const std::map<std::string, DtypeInfo>& dtypeTable()
{
    static const std::map<std::string, DtypeInfo> table{{"float32", {4, true}},  {"float64", {8, true}},
                                                       {"float16", {2, true}},  {"bfloat16", {2, true}},
                                                       {"int64", {8, false}},   {"int32", {4, false}}};
    return table;
}

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> parts;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, separator))
        parts.push_back(part);
    if (!text.empty() && text.back() == separator)
        parts.emplace_back();
    return parts;
}

bool isDigits(const std::string& text)
{
    return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

std::vector<std::int64_t> parseInputShape(const std::string& text)
{
    std::vector<std::int64_t> shape;
    for (const std::string& part : split(text, 'x')) {
        if (!isDigits(part) || part.size() > 9)
            throw std::invalid_argument("input shape \"" + text + "\" is not like 1x3x224x224");
        shape.push_back(std::stoll(part));
        if (shape.back() == 0)
            throw std::invalid_argument("input shape \"" + text + "\" has a zero dimension");
    }
    if (shape.empty())
        throw std::invalid_argument("input shape \"" + text + "\" is not like 1x3x224x224");
    return shape;
}

std::string formatInputShape(const std::vector<std::int64_t>& shape)
{
    std::string text;
    for (std::int64_t d : shape)
        text += (text.empty() ? "" : "x") + std::to_string(d);
    return text;
}

InputSpec parseInputSpec(const std::string& text)
{
    const std::vector<std::string> parts = split(text, ':');
    if (parts.empty() || parts.size() > 3)
        throw std::invalid_argument("input \"" + text + "\" is not like 1x3x224x224, 4x64:int64 or 4x64:int64:1000");
    InputSpec input;
    input.shape = parseInputShape(parts[0]);
    if (parts.size() > 1) {
        input.dtype = parts[1];
        checkDtype(input.dtype);
    }
    if (parts.size() > 2) {
        if (!isIntegerDtype(input.dtype))
            throw std::invalid_argument("input \"" + text + "\": a value range (:HIGH) is for int64 and int32 inputs");
        if (!isDigits(parts[2]) || parts[2].size() > 18 || std::stoll(parts[2]) < 1)
            throw std::invalid_argument("input \"" + text + "\": HIGH must be a whole number of at least 1");
        input.high = std::stoll(parts[2]);
    }
    // The widest dtype bounds the bytes whatever --dtype turns out to be.
    std::int64_t bytes = input.dtype.empty() ? 8 : dtypeTable().at(input.dtype).bytes;
    for (std::int64_t d : input.shape) {
        if (bytes > std::numeric_limits<std::int64_t>::max() / d)
            throw std::invalid_argument("input \"" + text + "\" would take 2^63 bytes or more");
        bytes *= d;
    }
    return input;
}

std::string formatInputSpec(const InputSpec& input)
{
    std::string text = formatInputShape(input.shape);
    if (!input.dtype.empty())
        text += ":" + input.dtype;
    if (input.high != InputSpec{}.high)
        text += ":" + std::to_string(input.high);
    return text;
}

std::string formatInputSpecs(const std::vector<InputSpec>& inputs)
{
    std::string text;
    for (const InputSpec& input : inputs)
        text += (text.empty() ? "" : ", ") + formatInputSpec(input);
    return text;
}

bool isFloatDtype(const std::string& dtype)
{
    auto it = dtypeTable().find(dtype);
    return it != dtypeTable().end() && it->second.isFloat;
}

bool isIntegerDtype(const std::string& dtype)
{
    auto it = dtypeTable().find(dtype);
    return it != dtypeTable().end() && !it->second.isFloat;
}

void checkDtype(const std::string& dtype)
{
    if (!dtypeTable().count(dtype))
        throw std::invalid_argument("dtype must be float32, float64, float16, bfloat16, int64 or int32, got \"" + dtype +
                                    "\"");
}

std::vector<InputSpec> withDtypes(std::vector<InputSpec> inputs, const std::string& defaultDtype)
{
    for (InputSpec& input : inputs)
        if (input.dtype.empty())
            input.dtype = defaultDtype;
    return inputs;
}

void checkBatchDim(const std::vector<InputSpec>& inputs, int batchDim)
{
    if (inputs.empty() || batchDim < 0 || batchDim >= static_cast<int>(inputs.front().shape.size()))
        throw std::invalid_argument("batch dimension " + std::to_string(batchDim) + " is not a dimension of input " +
                                    (inputs.empty() ? std::string("(none)") : formatInputSpec(inputs.front())));
}

void writeInputMetadata(GraphBuilder& builder, const std::vector<InputSpec>& inputs, int batchDim)
{
    checkBatchDim(inputs, batchDim);
    nlohmann::json list = nlohmann::json::array();
    for (const InputSpec& input : inputs) {
        nlohmann::json item{{"shape", input.shape}, {"dtype", input.dtype}};
        if (isIntegerDtype(input.dtype))
            item["high"] = input.high;
        list.push_back(std::move(item));
    }
    builder.setMetadata("inputs", list.dump());
    builder.setMetadata("input_shape", nlohmann::json(inputs.front().shape).dump());
    builder.setMetadata("input_dtype", nlohmann::json(inputs.front().dtype).dump());
    builder.setMetadata("batch_dim", std::to_string(batchDim));
    builder.setMetadata("batch_size", std::to_string(inputs.front().shape[static_cast<std::size_t>(batchDim)]));
}

std::optional<std::vector<InputSpec>> importedInputs(const Graph& graph)
{
    const auto& metadata = graph.metadata();
    auto value = [&](const std::string& key) {
        auto it = metadata.find(key);
        return it == metadata.end() ? nlohmann::json() : nlohmann::json::parse(it->second);
    };
    auto shapeOf = [](const nlohmann::json& shape, const std::string& key) {
        std::vector<std::int64_t> out;
        if (!shape.is_array() || shape.empty())
            throw std::invalid_argument("metadata \"" + key + "\" is not an array of positive integers");
        for (const auto& d : shape) {
            if (!d.is_number_integer() || d.get<std::int64_t>() < 1)
                throw std::invalid_argument("metadata \"" + key + "\" is not an array of positive integers");
            out.push_back(d.get<std::int64_t>());
        }
        return out;
    };
    auto dtypeOf = [](const nlohmann::json& dtype, const std::string& key) {
        if (!dtype.is_string() || (!isFloatDtype(dtype.get<std::string>()) && !isIntegerDtype(dtype.get<std::string>())))
            throw std::invalid_argument("metadata \"" + key + "\" is not a dtype ckptx-torch knows");
        return dtype.get<std::string>();
    };
    std::vector<InputSpec> inputs;
    if (const nlohmann::json list = value("inputs"); !list.is_null()) {
        if (!list.is_array() || list.empty())
            throw std::invalid_argument("metadata \"inputs\" is not a non-empty array");
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string key = "inputs/" + std::to_string(i);
            if (!list[i].is_object())
                throw std::invalid_argument("metadata \"" + key + "\" is not an object");
            InputSpec input;
            input.shape = shapeOf(list[i].value("shape", nlohmann::json()), key + "/shape");
            input.dtype = dtypeOf(list[i].value("dtype", nlohmann::json()), key + "/dtype");
            if (const auto high = list[i].value("high", nlohmann::json()); !high.is_null()) {
                if (!high.is_number_integer() || high.get<std::int64_t>() < 1)
                    throw std::invalid_argument("metadata \"" + key + "/high\" is not a positive integer");
                input.high = high.get<std::int64_t>();
            }
            inputs.push_back(std::move(input));
        }
        return inputs;
    }
    const nlohmann::json shape = value("input_shape");
    if (shape.is_null())
        return std::nullopt;
    const nlohmann::json dtype = value("input_dtype");
    inputs.push_back({shapeOf(shape, "input_shape"), dtype.is_null() ? "float32" : dtypeOf(dtype, "input_dtype")});
    return inputs;
}

}  // namespace ckpt::torchx
