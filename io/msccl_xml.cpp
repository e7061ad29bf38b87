#include "io/msccl_xml.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <pugixml.hpp>
#include <sstream>
#include <utility>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "io/xml_document.hpp"

namespace phasecheck::io {

namespace {

using msccl::Dialect;
using msccl::Gpu;
using msccl::Program;
using msccl::Step;
using msccl::StepType;
using msccl::Threadblock;

/// Steps in one file, at most: the lowering keeps about 200 bytes per step.
constexpr std::uint64_t kMaxStepsPerFile = 4'000'000;

class Reader {
 public:
  Reader(std::string_view text, std::string_view source)
      : xml_(text, source, {.one_root_hint = "(an MSCCL file holds one <algo>)"}),
        source_(source) {}
  Program read();

 private:
  [[noreturn]] void fail(const pugi::xml_node& n, const std::string& what) const {
    xml_.fail(n, what);
  }
  std::uint32_t line(const pugi::xml_node& n) const { return xml_.line(n); }
  std::optional<std::int64_t> integer(const pugi::xml_node& n, const char* key, std::int64_t lo,
                                      std::int64_t hi, bool required) const;
  std::optional<Slot> slot(const pugi::xml_node& n, const char* buf, const char* off,
                           std::uint32_t count, bool required) const;
  Step read_step(const pugi::xml_node& n, Dialect dialect, const Threadblock& tb, std::uint32_t gpu,
                 std::uint32_t position) const;
  void check_children(const pugi::xml_node& n, std::string_view allowed) const;

  XmlDocument xml_;
  std::string source_;
  std::uint32_t ngpus_ = 0;
};

std::optional<std::int64_t> Reader::integer(const pugi::xml_node& n, const char* key,
                                            std::int64_t lo, std::int64_t hi, bool required) const {
  const pugi::xml_attribute a = n.attribute(key);
  if (!a) {
    if (required) fail(n, std::string("missing attribute ") + key);
    return std::nullopt;
  }
  const std::string_view v = a.value();
  std::int64_t x = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size())
    fail(n, std::string(key) + "=\"" + std::string(v) + "\" is not an integer");
  if (x < lo || x > hi)
    fail(n, std::string(key) + "=\"" + std::string(v) + "\" is out of range (" +
                std::to_string(lo) + " to " + std::to_string(hi) + ")");
  return x;
}

std::optional<Slot> Reader::slot(const pugi::xml_node& n, const char* buf, const char* off,
                                 std::uint32_t count, bool required) const {
  const pugi::xml_attribute b = n.attribute(buf);
  const std::optional<std::int64_t> o = integer(n, off, -1, kMaxSlots, required);
  if (required && !b) fail(n, std::string("missing attribute ") + buf);
  if (!o || *o < 0) {
    if (required) fail(n, std::string(off) + "=\"-1\": this step needs the slot");
    return std::nullopt;
  }
  const std::string_view name = b ? std::string_view(b.value()) : std::string_view("?");
  Buffer buffer;
  if (name == "i")
    buffer = Buffer::input;
  else if (name == "o")
    buffer = Buffer::output;
  else if (name == "s")
    buffer = Buffer::scratch;
  else
    fail(n, std::string(buf) + "=\"" + std::string(name) + "\": unknown buffer (i, o or s)");
  if (std::uint64_t(*o) + count > kMaxSlots)
    fail(n, std::string(off) + " + cnt passes " + std::to_string(kMaxSlots) + " slots");
  return Slot{buffer, static_cast<std::uint32_t>(*o)};
}

void Reader::check_children(const pugi::xml_node& n, std::string_view allowed) const {
  for (const pugi::xml_node& c : n.children()) {
    if (c.type() == pugi::node_element) {
      if (c.name() != allowed)
        fail(c, "unexpected element inside <" + std::string(n.name()) + "> (expected <" +
                    std::string(allowed) + ">)");
    } else if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) {
      const std::string_view v = c.value();
      if (v.find_first_not_of(" \t\r\n") != std::string_view::npos)
        fail(n, "unexpected text inside the element");
    }
  }
}

Step Reader::read_step(const pugi::xml_node& n, Dialect dialect, const Threadblock& tb,
                       std::uint32_t gpu, std::uint32_t position) const {
  Step s;
  s.line = line(n);
  const bool op = dialect == Dialect::op;
  s.index = static_cast<std::uint32_t>(*integer(n, op ? "step" : "s", 0, kMaxSlots, true));
  if (s.index != position)
    fail(n, std::string(op ? "step" : "s") + "=\"" + std::to_string(s.index) +
                "\": steps of a threadblock are numbered 0, 1, 2, ... in order; this is step " +
                std::to_string(position));
  const std::string_view type = n.attribute("type").value();
  if (!n.attribute("type")) fail(n, "missing attribute type");
  if (type == "s")
    s.type = StepType::send;
  else if (type == "r")
    s.type = StepType::receive;
  else if (type == "rcs")
    s.type = StepType::receive_copy_send;
  else if (type == "cpy")
    s.type = StepType::copy;
  else if (type == "nop")
    s.type = StepType::nop;
  else if (type == "rrs")
    s.type = StepType::receive_reduce_send;
  else if (type == "rrc")
    s.type = StepType::receive_reduce_copy;
  else if (type == "rrcs")
    s.type = StepType::receive_reduce_copy_send;
  else if (type == "re")
    s.type = StepType::reduce;
  else
    fail(n, "type=\"" + std::string(type) +
                "\": unknown step type (s, r, rcs, cpy, nop, rrs, rrc, rrcs, re)");

  const std::int64_t count = *integer(n, "cnt", 0, kMaxSlots, !op);
  s.count = static_cast<std::uint32_t>(n.attribute("cnt") ? count : 1);
  if (s.type != StepType::nop && s.count == 0)
    fail(n, "cnt=\"0\": a step that moves data moves at least one chunk");
  if (s.type == StepType::nop) s.count = n.attribute("cnt") ? s.count : 0;

  const bool reads = s.type == StepType::send || s.type == StepType::copy;
  const bool writes = s.type == StepType::receive || s.type == StepType::receive_copy_send ||
                      s.type == StepType::copy;
  if (msccl::reduces(s.type)) {
    // Read for lint only (core/msccl.hpp never lowers a reduction): both slots, if given.
    s.src = slot(n, op ? "buf" : "srcbuf", op ? "off" : "srcoff", s.count, false);
    if (!op) s.dst = slot(n, "dstbuf", "dstoff", s.count, false);
  } else if (op && s.type != StepType::copy && s.type != StepType::nop) {
    // buf/off: the slot a send reads, the slot a receive writes.
    (reads ? s.src : s.dst) = slot(n, "buf", "off", s.count, true);
  } else {
    const bool needed = s.type != StepType::nop;
    s.src = slot(n, "srcbuf", "srcoff", s.count, needed && reads);
    s.dst = slot(n, "dstbuf", "dstoff", s.count, needed && writes);
    if (s.type == StepType::send) std::swap(s.dst, s.remote);
    if (s.type == StepType::receive || s.type == StepType::receive_copy_send)
      std::swap(s.src, s.remote);
    if (s.type == StepType::nop) s.src = s.dst = std::nullopt;
  }
  if (s.sends() && tb.send < 0)
    fail(n, "a send in threadblock " + std::to_string(tb.id) + " of gpu " + std::to_string(gpu) +
                ", which has no send peer (send=\"-1\")");
  if (s.receives() && tb.recv < 0)
    fail(n, "a receive in threadblock " + std::to_string(tb.id) + " of gpu " + std::to_string(gpu) +
                ", which has no receive peer (recv=\"-1\")");
  s.depend_threadblock = static_cast<std::int32_t>(
      integer(n, "depid", -1, msccl::kMaxThreadblocks * 64, !op).value_or(-1));
  s.depend_step = static_cast<std::int32_t>(integer(n, "deps", -1, kMaxSlots, !op).value_or(-1));
  if ((s.depend_threadblock < 0) != (s.depend_step < 0))
    fail(n, "depid and deps are both -1 (no dependency) or both name a step");
  s.signals = integer(n, "hasdep", 0, 1, !op).value_or(0) == 1;
  return s;
}

Program Reader::read() {
  const pugi::xml_node algo = xml_.root();
  if (!algo) throw InputError(source_ + ": no <algo> element: not an MSCCL XML file");
  if (std::string_view(algo.name()) != "algo")
    fail(algo, "the top-level element of an MSCCL file is <algo>");

  Program p;
  p.line = line(algo);
  p.name = algo.attribute("name").value();
  if (algo.attribute("proto")) p.protocol = algo.attribute("proto").value();
  p.coll = algo.attribute("coll").value();
  if (!algo.attribute("coll")) fail(algo, "missing attribute coll");
  p.ngpus = static_cast<std::uint32_t>(*integer(algo, "ngpus", 1, kMaxRanks, true));
  ngpus_ = p.ngpus;
  p.nchunksperloop = static_cast<std::uint32_t>(
      *integer(algo, "nchunksperloop", 1, std::int64_t{kMaxRanks} * kMaxParts, true));
  if (const auto v = integer(algo, "nchannels", 0, 1024, false))
    p.nchannels = static_cast<std::uint32_t>(*v);
  if (const auto v = integer(algo, "inplace", 0, 1, false)) p.inplace = *v == 1;
  if (const auto v = integer(algo, "outofplace", 0, 1, false)) p.outofplace = *v == 1;
  p.min_bytes = integer(algo, "minBytes", 0, std::numeric_limits<std::int64_t>::max(), false);
  p.max_bytes = integer(algo, "maxBytes", 0, std::numeric_limits<std::int64_t>::max(), false);
  check_children(algo, "gpu");

  std::optional<Dialect> dialect;
  std::uint64_t steps = 0;
  // By id, as they come: ngpus is only a number in the file, so nothing is sized from it.
  std::map<std::uint32_t, Gpu> gpus;
  for (const pugi::xml_node& g : algo.children("gpu")) {
    Gpu gpu;
    gpu.line = line(g);
    gpu.id = static_cast<std::uint32_t>(*integer(g, "id", 0, p.ngpus - 1, true));
    if (gpus.contains(gpu.id)) fail(g, "gpu " + std::to_string(gpu.id) + " appears twice");
    gpu.input_chunks = static_cast<std::uint32_t>(*integer(g, "i_chunks", 0, kMaxSlots, true));
    gpu.output_chunks = static_cast<std::uint32_t>(*integer(g, "o_chunks", 0, kMaxSlots, true));
    gpu.scratch_chunks = static_cast<std::uint32_t>(*integer(g, "s_chunks", 0, kMaxSlots, true));
    check_children(g, "tb");
    std::map<std::uint32_t, std::size_t> tb_index;
    for (const pugi::xml_node& t : g.children("tb")) {
      Threadblock tb;
      tb.line = line(t);
      tb.id = static_cast<std::uint32_t>(*integer(t, "id", 0, msccl::kMaxThreadblocks * 64, true));
      if (!tb_index.emplace(tb.id, gpu.threadblocks.size()).second)
        fail(t, "threadblock " + std::to_string(tb.id) + " appears twice on gpu " +
                    std::to_string(gpu.id));
      tb.send = static_cast<std::int32_t>(*integer(t, "send", -1, p.ngpus - 1, true));
      tb.recv = static_cast<std::int32_t>(*integer(t, "recv", -1, p.ngpus - 1, true));
      if (tb.send == std::int32_t(gpu.id) || tb.recv == std::int32_t(gpu.id))
        fail(t, "a threadblock's peers are other gpus (gpu " + std::to_string(gpu.id) + ")");
      tb.channel = static_cast<std::uint32_t>(*integer(t, "chan", 0, 1023, true));
      std::uint32_t position = 0;
      for (const pugi::xml_node& s : t.children()) {
        if (s.type() != pugi::node_element) continue;
        const std::string_view kind = s.name();
        const Dialect d = kind == "op" ? Dialect::op : Dialect::step;
        if (kind != "step" && kind != "op")
          fail(s, "unexpected element inside <tb> (expected <step> or <op>)");
        if (dialect && *dialect != d) fail(s, "<step> and <op> elements mixed in one file");
        dialect = d;
        if (++steps > kMaxStepsPerFile)
          fail(s, "more than " + std::to_string(kMaxStepsPerFile) + " steps in one file");
        tb.steps.push_back(read_step(s, d, tb, gpu.id, position++));
      }
      check_children(t, dialect == Dialect::op ? "op" : "step");
      gpu.threadblocks.push_back(std::move(tb));
    }
    // Dependencies name a threadblock of the same gpu and one of its steps.
    for (Threadblock& tb : gpu.threadblocks)
      for (const Step& s : tb.steps) {
        if (s.depend_threadblock < 0) continue;
        const auto it = tb_index.find(static_cast<std::uint32_t>(s.depend_threadblock));
        const auto where = [&] {
          for (const pugi::xml_node& t : g.children("tb"))
            if (t.attribute("id").as_llong(-1) == tb.id) {
              std::uint32_t k = 0;
              for (const pugi::xml_node& x : t.children())
                if (x.type() == pugi::node_element && k++ == s.index) return x;
            }
          return g;
        };
        if (it == tb_index.end())
          fail(where(), "depid=\"" + std::to_string(s.depend_threadblock) + "\": gpu " +
                            std::to_string(gpu.id) + " has no threadblock " +
                            std::to_string(s.depend_threadblock));
        if (static_cast<std::size_t>(s.depend_step) >= gpu.threadblocks[it->second].steps.size())
          fail(where(), "deps=\"" + std::to_string(s.depend_step) + "\": threadblock " +
                            std::to_string(s.depend_threadblock) + " of gpu " +
                            std::to_string(gpu.id) + " has " +
                            std::to_string(gpu.threadblocks[it->second].steps.size()) + " steps");
      }
    const std::uint32_t id = gpu.id;
    gpus.emplace(id, std::move(gpu));
  }
  // Ids are below ngpus, so ngpus of them are every id once; otherwise the first one missing.
  if (gpus.size() != p.ngpus) {
    std::uint32_t missing = 0;
    for (const auto& [id, gpu] : gpus) {
      if (id != missing) break;
      ++missing;
    }
    fail(algo, "ngpus=\"" + std::to_string(p.ngpus) + "\" but there is no <gpu id=\"" +
                   std::to_string(missing) + "\">");
  }
  for (auto& [id, gpu] : gpus) p.gpus.push_back(std::move(gpu));
  p.dialect = dialect.value_or(Dialect::step);
  return p;
}

}  // namespace

bool looks_like_xml(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  const std::size_t i = text.find_first_not_of(" \t\r\n");
  return i != std::string_view::npos && text[i] == '<';
}

msccl::Program parse_msccl(std::string_view text, std::string_view source) {
  return Reader(text, source).read();
}

msccl::Program read_msccl_file(const std::string& path) {
  const std::string text = read_input(path);
  return parse_msccl(text, input_name(path));
}

std::string msccl_to_xml(const msccl::Program& p) {
  pugi::xml_document doc;
  pugi::xml_node algo = doc.append_child("algo");
  // pugixml escapes markup but writes any character it is given: text from the input (the
  // program's name, protocol, collective) is made XML's characters first, and one line of inert
  // text, since the runtimes print the name in their logs.
  const auto set = [](pugi::xml_node& n, const char* key, const auto& value) {
    if constexpr (std::is_convertible_v<decltype(value), std::string_view>)
      n.append_attribute(key).set_value(xml_chars(text_escape(value)).c_str());
    else
      n.append_attribute(key).set_value(std::to_string(value).c_str());
  };
  // Attributes the program leaves out stay out, so that a file reads back as it was.
  const auto set_if = [&](pugi::xml_node& n, const char* key, const auto& value) {
    if (value) set(n, key, *value);
  };
  const auto flag = [](std::optional<bool> b) {
    return b ? std::optional<int>(*b ? 1 : 0) : std::nullopt;
  };
  set(algo, "name", p.name);
  set_if(algo, "proto", p.protocol);
  set_if(algo, "nchannels", p.nchannels);
  set(algo, "nchunksperloop", p.nchunksperloop);
  set(algo, "ngpus", p.ngpus);
  set(algo, "coll", p.coll);
  set_if(algo, "inplace", flag(p.inplace));
  set_if(algo, "outofplace", flag(p.outofplace));
  set_if(algo, "minBytes", p.min_bytes);
  set_if(algo, "maxBytes", p.max_bytes);
  const auto buffer = [](Buffer b) {
    return b == Buffer::input ? "i" : b == Buffer::output ? "o" : "s";
  };
  for (const Gpu& g : p.gpus) {
    pugi::xml_node gpu = algo.append_child("gpu");
    set(gpu, "id", g.id);
    set(gpu, "i_chunks", g.input_chunks);
    set(gpu, "o_chunks", g.output_chunks);
    set(gpu, "s_chunks", g.scratch_chunks);
    for (const Threadblock& t : g.threadblocks) {
      pugi::xml_node tb = gpu.append_child("tb");
      set(tb, "id", t.id);
      set(tb, "send", t.send);
      set(tb, "recv", t.recv);
      set(tb, "chan", t.channel);
      for (const Step& s : t.steps) {
        pugi::xml_node step = tb.append_child("step");
        // The runtime reads src for s and cpy, dst for r, rcs and cpy; the other side is the
        // peer's slot when known (msccl-tools writes it), -1 otherwise.
        const std::optional<Slot> src =
            s.type == StepType::receive || s.type == StepType::receive_copy_send ? s.remote : s.src;
        const std::optional<Slot> dst = s.type == StepType::send ? s.remote : s.dst;
        set(step, "s", s.index);
        set(step, "type", msccl::to_string(s.type));
        set(step, "srcbuf", src ? buffer(src->buffer) : "i");
        set(step, "srcoff", src ? std::int64_t{src->index} : std::int64_t{-1});
        set(step, "dstbuf", dst ? buffer(dst->buffer) : "o");
        set(step, "dstoff", dst ? std::int64_t{dst->index} : std::int64_t{-1});
        set(step, "cnt", s.count);
        set(step, "depid", s.depend_threadblock);
        set(step, "deps", s.depend_step);
        set(step, "hasdep", s.signals ? 1 : 0);
      }
    }
  }
  std::ostringstream out;
  doc.save(out, "  ", pugi::format_indent | pugi::format_no_declaration, pugi::encoding_utf8);
  return out.str();
}

}  // namespace phasecheck::io
