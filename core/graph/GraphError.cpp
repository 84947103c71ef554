#include "graph/GraphError.h"

namespace ckpt {

GraphError::GraphError(std::string problem, std::string where, std::string file)
    : std::runtime_error(format(problem, where, file)),
      m_problem(std::move(problem)),
      m_where(std::move(where)),
      m_file(std::move(file))
{
}

std::string GraphError::format(const std::string& problem, const std::string& where, const std::string& file)
{
    std::string out;
    if (!file.empty())
        out += file + ": ";
    if (!where.empty())
        out += where + ": ";
    return out + problem;
}

}  // namespace ckpt
