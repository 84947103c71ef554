// ckptx-torch: TorchScript models in, graphs and measured training memory out. See `ckptx-torch help`.
#include "Cli.h"

int main(int argc, char** argv)
{
    return ckptx::dispatch("ckptx-torch", argc, argv);
}
