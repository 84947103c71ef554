#include "InputOptions.h"

namespace ckptx {

void readInputOptions(const Args& args, ckpt::torchx::ImportOptions& options)
{
    try {
        options.inputs.clear();
        for (const std::string& text : args.optionValues("--input"))
            options.inputs.push_back(ckpt::torchx::parseInputSpec(text));
        options.dtype = args.option("--dtype").value_or("float32");
        ckpt::torchx::checkDtype(options.dtype);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

}  // namespace ckptx
