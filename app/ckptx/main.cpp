// ckptx: the command-line face of the core. See `ckptx help`.
#include "Cli.h"

int main(int argc, char** argv)
{
    return ckptx::dispatch("ckptx", argc, argv);
}
