#include "core/errors.h"

namespace ibsec {

ConfigError::ConfigError(const std::string& field, const std::string& problem)
    : std::runtime_error("invalid '" + field + "': " + problem), field_(field) {}

}  // namespace ibsec
