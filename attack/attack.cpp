#include "attack/attack.h"

#include <sstream>

#include "core/errors.h"

namespace ibsec::attack {
namespace {

void read_link(const ParameterValues& v, const std::string& key, AttackParams& a) {
  a.link = v.text(key);
  if (a.present()) a.site = AttackSite::parse(a.link, key);
}

const char* tamper_field_name(TamperField field) {
  switch (field) {
    case TamperField::kHeader:
      return "header";
    case TamperField::kPayload:
      return "payload";
    case TamperField::kTag:
      return "tag";
    case TamperField::kAny:
      break;
  }
  return "any";
}

void read_tamper_field(const ParameterValues& v, const std::string& key, AttackParams& a) {
  const std::string field = v.text(key);
  for (const TamperField f : {TamperField::kAny, TamperField::kHeader, TamperField::kPayload, TamperField::kTag}) {
    if (field == tamper_field_name(f)) {
      a.tamper_field = f;
      return;
    }
  }
  throw ConfigError(key, "expected header, payload, tag or any, got '" + field + "'");
}

ParameterSet<AttackParams> declare() {
  const AttackParams d;
  ParameterSet<AttackParams> set(d);
  set.custom("attack.link", d.link, "",
             "cable an attacker sits on: 'node N out', 'node N in' or 'switch S port P'; empty = no attacker "
             "(docs/attacks.md; needs nic.crypto.mode = functional)",
             read_link)
      .number("attack.snoop", &AttackParams::snoop, "fraction",
              "share of passing packets the attacker copies into its capture", Bound::kFraction)
      .number("attack.tamper", &AttackParams::tamper, "fraction",
              "share of passing packets the attacker alters (one bit flipped)", Bound::kFraction)
      .custom("attack.tamper_field", tamper_field_name(d.tamper_field), "",
              "what a tamper flips: header, payload, tag or any", read_tamper_field)
      .number("attack.inject", &AttackParams::inject, "fraction",
              "per passing packet, chance of a forged packet sent behind it", Bound::kFraction)
      .number("attack.replay", &AttackParams::replay, "fraction",
              "share of passing packets captured and sent again attack.replay_delay_us later", Bound::kFraction)
      .duration("attack.replay_delay_us", &AttackParams::replay_delay, TimeUnit::kUs,
                "how long after capture a replayed packet is sent")
      .number("attack.spoof", &AttackParams::spoof, "fraction",
              "per passing packet, chance of a copy claiming another source process", Bound::kFraction)
      .list("attack.victims", &AttackParams::victims, "nodes",
            "destination nodes whose packets are attacked; empty = all")
      .file("attack.capture_file", &AttackParams::capture_file, FileRole::kOutput,
            "CSV of the snooped packets as they were on the wire (off when empty)");
  return set;
}

}  // namespace

const ParameterSet<AttackParams>& attack_parameters() {
  static const ParameterSet<AttackParams> set = declare();
  return set;
}

AttackSite AttackSite::parse(const std::string& text, const std::string& key) {
  std::istringstream in(text);
  std::string first;
  std::string third;
  std::string extra;
  uint64_t index = 0;
  AttackSite site;
  in >> first >> index;
  const bool numbered = !in.fail();
  in >> third;
  if (numbered && first == "node" && (third == "out" || third == "in")) {
    site.kind = third == "out" ? Kind::kNodeOut : Kind::kNodeIn;
  } else if (numbered && first == "switch" && third == "port") {
    uint64_t port = 0;
    in >> port;
    if (in.fail() || port > UINT16_MAX) throw ConfigError(key, "expected 'switch S port P', got '" + text + "'");
    site.kind = Kind::kSwitchPort;
    site.port = static_cast<uint16_t>(port);
  } else {
    throw ConfigError(key, "expected 'node N out', 'node N in' or 'switch S port P', got '" + text + "'");
  }
  if (index > UINT32_MAX || (in >> extra)) throw ConfigError(key, "cannot read '" + text + "' as a link");
  site.index = static_cast<uint32_t>(index);
  return site;
}

std::string AttackSite::text() const {
  switch (kind) {
    case Kind::kNodeOut:
      return "node " + std::to_string(index) + " out";
    case Kind::kNodeIn:
      return "node " + std::to_string(index) + " in";
    case Kind::kSwitchPort:
      break;
  }
  return "switch " + std::to_string(index) + " port " + std::to_string(port);
}

}  // namespace ibsec::attack
