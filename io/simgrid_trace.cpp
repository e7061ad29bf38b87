#include "io/simgrid_trace.hpp"

#include <algorithm>
#include <map>

#include "core/error.hpp"
#include "core/files.hpp"

namespace phasecheck::io {
namespace {

/// Splits a Paje line into fields: whitespace-separated, "double quotes" group.
std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    if (line[i] == '"') {
      const std::size_t end = line.find('"', i + 1);
      if (end == std::string::npos) throw InputError("an unterminated \"string\"");
      out.push_back(line.substr(i + 1, end - i - 1));
      i = end + 1;
    } else {
      std::size_t end = i;
      while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r') ++end;
      out.push_back(line.substr(i, end - i));
      i = end;
    }
  }
  return out;
}

struct EventDef {
  std::string name;
  std::vector<std::string> fields;
};

}  // namespace

TraceImport read_simgrid_trace(const std::string& path, const std::string& state,
                               std::uint32_t call) {
  InputFile file(path);
  std::istream& in = file.stream();
  std::map<std::string, EventDef> defs;  // event id -> definition
  std::map<std::string, std::string> container_name, value_name;
  std::map<std::string, std::vector<std::string>> stack;  // container -> state names
  std::map<std::string, std::uint32_t> entries;           // container -> calls entered
  struct Raw {
    std::string src, dst;
    double time;
  };
  std::map<std::string, std::vector<Raw>> sent;  // sender container -> messages of `call`
  std::string line;
  std::size_t number = 0;
  EventDef* open = nullptr;
  const auto fail = [&](const std::string& what) {
    throw InputError(path + ":" + std::to_string(number) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    try {
      if (line[0] == '%') {
        const auto f = fields(line.substr(1));
        if (f.empty()) continue;
        if (f[0] == "EventDef") {
          if (f.size() < 3) fail("%EventDef needs a name and an id");
          open = &defs[f[2]];
          *open = {f[1], {}};
        } else if (f[0] == "EndEventDef") {
          open = nullptr;
        } else if (open) {
          open->fields.push_back(f[0]);
        }
        continue;
      }
      const auto f = fields(line);
      if (f.empty()) continue;  // blank but for spaces
      const auto def = defs.find(f[0]);
      if (def == defs.end()) fail("event " + f[0] + " is not defined in the header");
      const auto& names = def->second.fields;
      if (f.size() < names.size() + 1)
        fail(def->second.name + " needs " + std::to_string(names.size()) + " fields");
      const auto get = [&](const char* field) -> const std::string& {
        const auto at = std::find(names.begin(), names.end(), field);
        if (at == names.end()) fail(def->second.name + " has no field " + field);
        return f[static_cast<std::size_t>(at - names.begin()) + 1];
      };
      const std::string& event = def->second.name;
      if (event == "PajeCreateContainer") {
        container_name[get("Alias")] = get("Name");
      } else if (event == "PajeDefineEntityValue") {
        value_name[get("Alias")] = get("Name");
      } else if (event == "PajePushState" || event == "PajeSetState") {
        const std::string& c = get("Container");
        const auto v = value_name.find(get("Value"));
        const std::string name = v == value_name.end() ? get("Value") : v->second;
        if (event == "PajeSetState") stack[c].clear();
        stack[c].push_back(name);
        if (name == state) ++entries[c];
      } else if (event == "PajePopState") {
        auto& s = stack[get("Container")];
        if (!s.empty()) s.pop_back();
      } else if (event == "PajeStartLink") {
        const std::string& from = get("StartContainer");
        const auto& s = stack[from];
        if (std::find(s.begin(), s.end(), state) == s.end() || entries[from] != call + 1) continue;
        const std::string& key = get("Key");
        const auto cut = key.find('_');
        const auto cut2 = key.find('_', cut + 1);
        if (cut == std::string::npos || cut2 == std::string::npos)
          fail("link key '" + key + "' is not src_dst_tag_seq");
        sent[from].push_back({from, key.substr(cut + 1, cut2 - cut - 1), std::stod(get("Time"))});
      }
    } catch (const InputError& e) {
      const std::string what = e.what();
      if (what.rfind(path + ":", 0) == 0) throw;
      fail(what);
    } catch (const std::exception&) {
      fail("malformed line");
    }
  }

  // Ranks: containers named rank-N.
  std::map<std::string, Rank> rank_of;
  std::map<Rank, std::string> alias_of;  // the other way, to find a rank named twice
  Rank ranks = 0;
  for (const auto& [alias, name] : container_name)
    if (name.rfind("rank-", 0) == 0) {
      const std::string digits = name.substr(5);
      unsigned long r = kMaxRanks;
      if (!digits.empty() && digits.size() <= 6 &&
          std::all_of(digits.begin(), digits.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        r = std::stoul(digits);
      if (r >= kMaxRanks)
        throw InputError(path + ": container '" + name + "' is not rank-N with N < " +
                         std::to_string(kMaxRanks));
      if (const auto [other, fresh] = alias_of.emplace(static_cast<Rank>(r), alias); !fresh)
        throw InputError(path + ": two containers are named '" + name + "' (" + other->second +
                         " and " + alias + ")");
      rank_of[alias] = static_cast<Rank>(r);
      ranks = std::max<Rank>(ranks, static_cast<Rank>(r + 1));
    }
  if (ranks == 0) throw InputError(path + ": no rank-N containers: not an SMPI trace");
  TraceImport out;
  out.ranks = ranks;
  out.state = state;
  for (const auto& [c, n] : entries) out.calls = std::max(out.calls, n);
  if (out.calls == 0)
    throw InputError(path + ": no rank enters " + state +
                     " (trace with --cfg=tracing/smpi:yes, and name the collective's state)");
  if (call >= out.calls)
    throw InputError(path + ": call " + std::to_string(call) + " of " + state + ", but only " +
                     std::to_string(out.calls) + " found");
  std::vector<std::pair<Rank, std::vector<Raw>>> by_rank;
  for (auto& [from, messages] : sent) {
    const auto r = rank_of.find(from);
    if (r == rank_of.end())
      throw InputError(path + ": a message from a non-rank container " + from);
    by_rank.push_back({r->second, std::move(messages)});
  }
  std::sort(by_rank.begin(), by_rank.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [src, messages] : by_rank) {
    std::uint32_t step = 0;
    for (const Raw& m : messages) {
      const auto d = rank_of.find(m.dst);
      if (d == rank_of.end())
        throw InputError(path + ": a message to container " + m.dst + ", which is not a rank");
      out.messages.push_back({src, d->second, step++, m.time});
    }
  }
  return out;
}

Schedule trace_schedule(const TraceImport& trace, const Topology& model, Collective collective) {
  if (ranks(model) != trace.ranks)
    throw InputError("the trace has " + std::to_string(trace.ranks) + " ranks, the topology " +
                     std::to_string(ranks(model)));
  Schedule s;
  s.header.algorithm = "simgrid-trace:" + trace.state;
  s.header.collective = collective;
  s.header.topology = model;
  std::uint32_t steps = 0;
  for (const auto& m : trace.messages) steps = std::max(steps, m.step + 1);
  s.phases.resize(steps);
  for (std::uint32_t j = 0; j < steps; ++j) s.phases[j].set_label("step " + std::to_string(j));
  for (const auto& m : trace.messages)
    if (m.src != m.dst) s.phases[m.step].add(m.src, m.dst, direct_block(collective, m.src, m.dst));
  return s;
}

TraceCoverage coverage(const TraceImport& trace) {
  TraceCoverage c;
  std::map<std::pair<Rank, Rank>, unsigned> pairs;
  for (const TracedMessage& m : trace.messages) {
    if (m.src == m.dst)
      ++c.self;
    else
      ++pairs[{m.src, m.dst}];
  }
  c.pairs = pairs.size();
  for (const auto& [pair, n] : pairs) c.repeated += n > 1;
  c.all_pairs = std::uint64_t{trace.ranks} * (trace.ranks - 1);
  return c;
}

}  // namespace phasecheck::io
