#include "core/json_input.h"

#include <vector>

#include "core/bounded_input.h"
#include "core/errors.h"

namespace ibsec {
namespace {

using json = nlohmann::json;

// Follows the parse: the keys seen in each open object, and the path to it.
class StrictKeys {
 public:
  explicit StrictKeys(std::string origin) : origin_(std::move(origin)) {}

  bool operator()(int depth, json::parse_event_t event, json& parsed) {
    if (depth > kMaxJsonDepth) {
      throw ConfigError(origin_, "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    switch (event) {
      case json::parse_event_t::object_start:
        objects_.push_back({path_of_next_value(), {}});
        break;
      case json::parse_event_t::object_end:
        objects_.pop_back();
        break;
      case json::parse_event_t::key:
        add_key(parsed.get<std::string>());
        break;
      default:
        break;
    }
    return true;
  }

 private:
  struct Object {
    std::string path;
    std::vector<std::string> keys;
  };

  std::string path_of_next_value() const {
    if (objects_.empty() || objects_.back().keys.empty()) return objects_.empty() ? "" : objects_.back().path;
    const Object& o = objects_.back();
    return o.path.empty() ? o.keys.back() : o.path + "." + o.keys.back();
  }

  void add_key(const std::string& key) {
    Object& o = objects_.back();
    for (const std::string& seen : o.keys) {
      if (seen == key) {
        throw ConfigError(
            origin_, "'" + (o.path.empty() ? key : o.path + "." + key) + "' is given twice (JSON keys must be unique)");
      }
    }
    o.keys.push_back(key);
  }

  std::string origin_;
  std::vector<Object> objects_;
};

}  // namespace

json parse_user_json(const std::string& text, const std::string& origin) {
  try {
    return json::parse(text, StrictKeys(origin));
  } catch (const json::parse_error& e) {
    throw ConfigError(origin, std::string("not valid JSON: ") + e.what());
  } catch (const json::out_of_range& e) {  // a number beyond a double (1e400)
    throw ConfigError(origin, std::string("not a number a configuration can hold: ") + e.what());
  }
}

json read_user_json_file(const std::string& path, const std::string& what) {
  return parse_user_json(read_bounded_file(path, path, what, kMaxConfigFileBytes), path);
}

}  // namespace ibsec
