#include "record/recording.hpp"

#include <cstring>
#include <filesystem>
#include <limits>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"

namespace phasecheck::record {
namespace {

using nlohmann::json;

constexpr std::string_view kFormat = "phasecheck.recording/1";

/// One line's object, with the place for messages ("rank-3.jsonl:7").
class Line {
 public:
  Line(const json& value, std::string place) : value_(value), place_(std::move(place)) {}

  const json& at(const char* key) const {
    const auto it = value_.find(key);
    if (it == value_.end()) fail(std::string("missing \"") + key + "\"");
    return *it;
  }
  bool has(const char* key) const { return value_.contains(key) && !value_.at(key).is_null(); }

  std::string string(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) fail(std::string("\"") + key + "\" must be a string");
    return v.get<std::string>();
  }
  bool boolean(const char* key) const {
    const json& v = at(key);
    if (!v.is_boolean()) fail(std::string("\"") + key + "\" must be true or false");
    return v.get<bool>();
  }
  std::uint64_t uint(const char* key, std::uint64_t max) const { return uint_of(at(key), key, max); }
  /// A rank or -1 (any source).
  std::int64_t int_or_any(const char* key) const {
    const json& v = at(key);
    if (v.is_number_integer() && v.get<std::int64_t>() == -1) return -1;
    return static_cast<std::int64_t>(uint_of(v, key, std::numeric_limits<std::int32_t>::max()));
  }
  /// An MPI tag: the library's own collectives use negative ones; -1 is any tag.
  std::int64_t tag(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_integer() || v.get<std::int64_t>() < std::numeric_limits<std::int32_t>::min() ||
        v.get<std::int64_t>() > std::numeric_limits<std::int32_t>::max())
      fail(std::string("\"") + key + "\" must be a 32-bit integer");
    return v.get<std::int64_t>();
  }
  /// [a, b] of unsigned integers.
  std::pair<std::uint64_t, std::uint64_t> pair(const json& v, const char* key) const {
    if (!v.is_array() || v.size() != 2) fail(std::string("\"") + key + "\" must be [a, b]");
    return {uint_of(v[0], key, std::numeric_limits<std::uint64_t>::max()),
            uint_of(v[1], key, std::numeric_limits<std::uint64_t>::max())};
  }

  [[noreturn]] void fail(const std::string& what) const { throw InputError(place_ + ": " + what); }

 private:
  std::uint64_t uint_of(const json& v, const char* key, std::uint64_t max) const {
    if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<std::int64_t>() >= 0))
      fail(std::string("\"") + key + "\" must be a non-negative integer");
    const std::uint64_t x = v.get<std::uint64_t>();
    if (x > max) fail(std::string("\"") + key + "\" is " + std::to_string(x) + ", at most " +
                      std::to_string(max));
    return x;
  }

  const json& value_;
  std::string place_;
};

/// The run as the header line says it; every rank's must agree.
struct Header {
  Collective collective = Collective::alltoall;
  Rank rank = 0, ranks = 0;
  std::uint32_t count = 0;
  Types types = Types::contiguous;
  bool inplace = false;
  Level level = Level::pml;
  std::string library, routine;
  friend bool operator==(const Header&, const Header&) = default;
};

Bytes bytes_of(const Line& line, const json& v, const char* key, std::size_t data_size) {
  const auto [offset, length] = line.pair(v, key);
  if (offset > data_size || length > data_size - offset)
    line.fail(std::string("\"") + key + "\" points beyond the .bin file (" +
              std::to_string(data_size) + " bytes)");
  return {offset, length};
}

Buffer buffer_of(const Line& line, const char* key, const RankRecording& r) {
  const json& v = line.at(key);
  if (!v.is_object()) line.fail(std::string("\"") + key + "\" must be an object");
  const Line inner(v, "");
  Buffer b;
  b.base = line.pair(json::array({inner.at("base"), 0}), "base").first;
  b.bytes = line.pair(json::array({inner.at("bytes"), 0}), "bytes").first;
  const Bytes layout = bytes_of(line, inner.at("layout"), "layout", r.data.size());
  if (layout.length % 8 != 0) line.fail(std::string(key) + ".layout: not a whole number of offsets");
  const auto raw = r.bytes(layout);
  b.layout.resize(layout.length / 8);
  if (!raw.empty()) std::memcpy(b.layout.data(), raw.data(), raw.size());  // count 0: none
  for (std::size_t i = 0; i < b.layout.size(); ++i)
    if (b.layout[i] > b.bytes || b.bytes - b.layout[i] < 8)
      line.fail(std::string(key) + ".layout: element " + std::to_string(i) +
                " lies outside the buffer");
  return b;
}

Header read_header(const Line& line) {
  if (line.string("format") != kFormat)
    line.fail("not a recording (\"format\" must be \"" + std::string(kFormat) + "\")");
  Header h;
  const std::string collective = line.string("collective");
  if (collective == "alltoall") h.collective = Collective::alltoall;
  else if (collective == "allgather") h.collective = Collective::allgather;
  else line.fail("\"collective\" must be \"alltoall\" or \"allgather\"");
  h.ranks = static_cast<Rank>(line.uint("ranks", kMaxRecordedRanks));
  if (h.ranks == 0) line.fail("\"ranks\" must be at least 1");
  h.rank = static_cast<Rank>(line.uint("rank", h.ranks - 1));
  h.count = static_cast<std::uint32_t>(line.uint("count", kMaxRecordedCount));
  try {
    h.types = parse_types(line.string("types"));
  } catch (const InputError& e) {
    line.fail(e.what());
  }
  h.inplace = line.boolean("inplace");
  const std::string level = line.string("level");
  if (level == "pml") h.level = Level::pml;
  else if (level == "pmpi") h.level = Level::pmpi;
  else line.fail("\"level\" must be \"pml\" or \"pmpi\"");
  h.library = line.string("library");
  h.routine = line.string("routine");
  return h;
}

Event read_event(const Line& line, std::size_t number, const RankRecording& r) {
  Event e;
  e.line = number;
  const std::string kind = line.string("ev");
  const auto span = [&] {
    const auto [lo, hi] = line.pair(line.at("span"), "span");
    if (hi < lo) line.fail("\"span\" ends before it starts");
    return Span{lo, hi};
  };
  if (kind == "send" || kind == "recv") {
    e.kind = kind == "send" ? Event::Kind::send : Event::Kind::recv;
    e.id = line.uint("id", std::numeric_limits<std::uint32_t>::max());
    e.peer = e.kind == Event::Kind::send
                 ? static_cast<std::int64_t>(line.uint("peer", kMaxRecordedRanks - 1))
                 : line.int_or_any("peer");
    e.tag = line.tag("tag");
    e.span = span();
    e.blocking = line.boolean("blocking");
    if (e.kind == Event::Kind::send)
      e.payload = bytes_of(line, line.at("payload"), "payload", r.data.size());
  } else if (kind == "complete") {
    e.kind = Event::Kind::complete;
    e.id = line.uint("id", std::numeric_limits<std::uint32_t>::max());
    e.peer = static_cast<std::int64_t>(line.uint("source", kMaxRecordedRanks - 1));
    e.tag = line.tag("tag");
    e.payload = bytes_of(line, line.at("payload"), "payload", r.data.size());
  } else if (kind == "abort") {
    e.kind = Event::Kind::abort;
    const json& code = line.at("code");
    if (!code.is_number_integer()) line.fail("\"code\" must be an integer");
    e.code = code.get<std::int64_t>();
  } else {
    line.fail("unknown event \"" + kind + "\"");
  }
  if ((e.payload.length % 8) != 0) line.fail("\"payload\" is not a whole number of elements");
  return e;
}

/// Reads one rank's files into `r`; returns its header.
Header read_rank(const std::string& jsonl, const std::string& bin, RankRecording& r) {
  r.data = read_input(bin);
  r.file = jsonl;
  const std::string text = read_input(jsonl);
  const std::string name = std::filesystem::path(jsonl).filename().string();
  std::optional<Header> header;
  std::size_t number = 0;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    const std::string_view raw(text.data() + at, eol - at);
    at = eol + 1;
    ++number;
    if (raw.empty()) continue;
    const std::string place = name + ":" + std::to_string(number);
    json value;
    try {
      value = json::parse(raw);
    } catch (const json::exception& e) {
      // A syntax error, or out_of_range.406 for a number beyond double ("1e400").
      throw InputError(place + ": invalid JSON: " + e.what());
    }
    if (!value.is_object()) throw InputError(place + ": a line must be a JSON object");
    const Line line(value, place);
    if (!header) {
      header = read_header(line);
      r.recv = buffer_of(line, "recv", r);
      if (line.has("send")) r.send = buffer_of(line, "send", r);
      // The layouts list every described element, so that each has an identity to check.
      const std::uint64_t all = std::uint64_t{header->ranks} * header->count;
      if (r.recv.layout.size() != all)
        line.fail("recv.layout has " + std::to_string(r.recv.layout.size()) + " elements, not p x count = " +
                  std::to_string(all));
      const std::uint64_t sent = header->collective == Collective::alltoall ? all : header->count;
      if (r.send && r.send->layout.size() != sent)
        line.fail("send.layout has " + std::to_string(r.send->layout.size()) + " elements, not " +
                  std::to_string(sent));
      continue;
    }
    if (r.end) line.fail("a line after the end line");
    const std::string kind = line.string("ev");
    if (kind == "final") {
      r.final_recv = bytes_of(line, line.at("recv"), "recv", r.data.size());
      if (r.final_recv->length != r.recv.bytes) line.fail("\"recv\" is not the whole buffer");
      if (line.has("send")) {
        if (!r.send) line.fail("\"send\" in place");
        r.final_send = bytes_of(line, line.at("send"), "send", r.data.size());
        if (r.final_send->length != r.send->bytes) line.fail("\"send\" is not the whole buffer");
      }
    } else if (kind == "end") {
      End end;
      const std::string status = line.string("status");
      if (status == "ok") end.status = End::Status::ok;
      else if (status == "error") end.status = End::Status::error;
      else if (status == "unloadable") end.status = End::Status::unloadable;
      else line.fail("\"status\" must be \"ok\", \"error\" or \"unloadable\"");
      if (end.status != End::Status::ok) end.error = line.string("error");
      r.end = std::move(end);
    } else {
      r.events.push_back(read_event(line, number, r));
    }
  }
  if (!header) throw InputError(name + ": empty (no header line)");
  if (r.end && r.end->status == End::Status::ok && !r.final_recv)
    throw InputError(name + ": the run ended without its final buffers");
  if (r.send.has_value() == header->inplace)
    throw InputError(name + ": \"send\" must be null exactly when the run is in place");
  return *header;
}

}  // namespace

std::string event_number(const Event& e) { return "event " + std::to_string(e.line - 1); }

std::string_view to_string(Types t) {
  switch (t) {
    case Types::contiguous:
      return "contiguous";
    case Types::strided:
      return "strided";
    case Types::resized:
      return "resized";
    case Types::different:
      return "different";
  }
  return "?";
}

Types parse_types(std::string_view name) {
  for (const Types t : {Types::contiguous, Types::strided, Types::resized, Types::different})
    if (to_string(t) == name) return t;
  throw InputError("unknown types \"" + std::string(name) +
                   "\" (known: contiguous, strided, resized, different)");
}

std::string_view to_string(Level l) {
  switch (l) {
    case Level::pml:
      return "pml";
    case Level::pmpi:
      return "pmpi";
  }
  return "?";
}

Recording read_recording(const std::string& directory) {
  namespace fs = std::filesystem;
  const auto path = [&](Rank r, const char* ext) {
    return (fs::path(directory) / ("rank-" + std::to_string(r) + ext)).string();
  };
  if (!fs::exists(path(0, ".jsonl"))) throw InputError(directory + ": no rank-0.jsonl");
  Recording rec;
  RankRecording first;
  Header h = read_rank(path(0, ".jsonl"), path(0, ".bin"), first);
  if (h.rank != 0) throw InputError(path(0, ".jsonl") + ": says it is rank " + std::to_string(h.rank));
  rec.collective = h.collective;
  rec.ranks = h.ranks;
  rec.count = h.count;
  rec.types = h.types;
  rec.inplace = h.inplace;
  rec.level = h.level;
  rec.library = h.library;
  rec.routine = h.routine;
  rec.rank.reserve(h.ranks);
  rec.rank.push_back(std::move(first));
  for (Rank r = 1; r < h.ranks; ++r) {
    const std::string jsonl = path(r, ".jsonl");
    if (!fs::exists(jsonl)) throw InputError(directory + ": no " + fs::path(jsonl).filename().string() +
                                             " (the run has " + std::to_string(h.ranks) + " ranks)");
    RankRecording rr;
    Header other = read_rank(jsonl, path(r, ".bin"), rr);
    if (other.rank != r) throw InputError(jsonl + ": says it is rank " + std::to_string(other.rank));
    other.rank = 0;
    if (other != h) throw InputError(jsonl + ": describes another run than rank-0.jsonl");
    rec.rank.push_back(std::move(rr));
  }
  return rec;
}

}  // namespace phasecheck::record
