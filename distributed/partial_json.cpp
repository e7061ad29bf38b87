#include "distributed/partial_json.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace phasecheck::distributed {
namespace {

using nlohmann::json;

json counterexample(const std::optional<Counterexample>& c) {
  if (!c) return nullptr;
  // The phase-local checks (contention, requests) name transfers, never ops or source steps.
  if (!c->ops.empty() || !c->steps.empty())
    throw std::logic_error("a phase-local counterexample with ops or steps");
  json transfers = json::array();
  for (const OffendingTransfer& t : c->transfers) {
    json blocks = json::array();
    for (const Block& b : t.blocks) blocks.push_back({b.origin, b.dest, b.part});
    transfers.push_back({{"src", t.src},
                         {"dst", t.dst},
                         {"blocks", blocks},
                         {"route", t.route},
                         {"origin", t.origin}});
  }
  return {{"phase", c->phase ? json(*c->phase) : json(nullptr)},
          {"label", c->label},
          {"phase_size", c->phase_size},
          {"transfers", transfers},
          {"resource", c->resource},
          {"explanation", c->explanation}};
}

std::optional<Counterexample> counterexample(const json& j) {
  if (j.is_null()) return std::nullopt;
  Counterexample c;
  if (!j.at("phase").is_null()) c.phase = j.at("phase").get<std::size_t>();
  c.label = j.at("label").get<std::string>();
  c.phase_size = j.at("phase_size").get<std::size_t>();
  for (const json& t : j.at("transfers")) {
    OffendingTransfer o{t.at("src").get<Rank>(), t.at("dst").get<Rank>(), {}, {}, {}};
    for (const json& b : t.at("blocks"))
      o.blocks.push_back({b.at(0).get<Rank>(), b.at(1).get<Rank>(), b.at(2).get<std::uint32_t>()});
    o.route = t.at("route").get<std::vector<std::string>>();
    o.origin = t.at("origin").get<std::string>();
    c.transfers.push_back(std::move(o));
  }
  c.resource = j.at("resource").get<std::string>();
  c.explanation = j.at("explanation").get<std::string>();
  return c;
}

json partial(const verify::Verifier::Partial& p) {
  const auto& t = p.contention;
  return {{"contention",
           {{"phases", t.phases},
            {"bad_phases", t.bad_phases},
            {"conflicts", t.conflicts},
            {"work", t.work},
            {"first", counterexample(t.first)}}},
          {"requests",
           {{"most", p.most_requests},
            {"failures", p.request_failures},
            {"first", counterexample(p.request_first)}}}};
}

verify::Verifier::Partial partial(const json& j) {
  const json& c = j.at("contention");
  const json& r = j.at("requests");
  verify::Verifier::Partial p;
  p.contention = {c.at("phases").get<std::uint64_t>(), c.at("bad_phases").get<std::uint64_t>(),
                  c.at("conflicts").get<std::uint64_t>(), c.at("work").get<std::uint64_t>(),
                  counterexample(c.at("first"))};
  p.most_requests = r.at("most").get<std::uint32_t>();
  p.request_failures = r.at("failures").get<std::uint64_t>();
  p.request_first = counterexample(r.at("first"));
  return p;
}

/// Parses `text`, from another process, with `read`; a malformed text is a runtime error.
template <class Read>
auto parsed(const std::string& text, const Read& read) {
  try {
    return read(json::parse(text));
  } catch (const json::exception& e) {
    throw std::runtime_error(std::string("a partial result from another process: ") + e.what());
  }
}

}  // namespace

std::string to_wire(const verify::Verifier::Partial& p) { return partial(p).dump(); }

verify::Verifier::Partial from_wire(const std::string& text) {
  return parsed(text, [](const json& j) { return partial(j); });
}

std::string to_wire(const verify::Verifier::RangeFindings& f) {
  const verify::Counts& c = f.counts;
  return json{{"partial", partial(f.partial)},
              {"counts",
               {{"phases", c.phases},
                {"c1", c.c1},
                {"c2", c.c2},
                {"transfers", c.transfers},
                {"blocks", c.blocks},
                {"direct", c.direct}}},
              {"invariant_evaluated", f.invariant_evaluated},
              {"clean", f.clean},
              {"fits", f.fits}}
      .dump();
}

verify::Verifier::RangeFindings range_findings_from_wire(const std::string& text) {
  return parsed(text, [](const json& j) {
    const json& c = j.at("counts");
    verify::Verifier::RangeFindings f;
    f.partial = partial(j.at("partial"));
    f.counts = {c.at("phases").get<std::size_t>(),   c.at("c1").get<std::size_t>(),
                c.at("c2").get<std::uint64_t>(),     c.at("transfers").get<std::uint64_t>(),
                c.at("blocks").get<std::uint64_t>(), c.at("direct").get<bool>()};
    f.invariant_evaluated = j.at("invariant_evaluated").get<std::vector<std::uint64_t>>();
    f.clean = j.at("clean").get<bool>();
    f.fits = j.at("fits").get<bool>();
    return f;
  });
}

}  // namespace phasecheck::distributed
