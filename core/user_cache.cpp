#include "core/user_cache.h"

#include <cstdlib>

namespace ibsec {

std::optional<std::filesystem::path> user_cache_folder() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && *xdg != '\0') return std::filesystem::path(xdg) / "ibsec";
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') return std::filesystem::path(home) / ".cache" / "ibsec";
  return std::nullopt;
}

}  // namespace ibsec
