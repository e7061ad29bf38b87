#include "experiments/sweep.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <charconv>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/limits.hpp"
#include "core/networks.hpp"
#include "core/progress.hpp"
#include "core/suggest.hpp"
#include "experiments/instance.hpp"
#include "launch/process.hpp"
#include "pipeline/generator.hpp"
#include "record/sweep.hpp"
#include "schedules/registry.hpp"
#include "verify/parallel.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::experiments {
namespace {

std::uint64_t number(std::string_view text, const std::string& option) {
  std::uint64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw InputError(option + ": \"" + text_escape(text) + "\" is not a number");
  return v;
}

/// "A..B" or "A": an inclusive range, not empty, not reversed.
std::pair<std::uint64_t, std::uint64_t> parse_range(std::string_view text,
                                                    const std::string& option) {
  const std::size_t dots = text.find("..");
  const std::uint64_t first = number(text.substr(0, dots), option);
  const std::uint64_t last =
      dots == std::string_view::npos ? first : number(text.substr(dots + 2), option);
  if (last < first)
    throw InputError(option + ": " + std::string(text_escape(text)) +
                     " is reversed (the first value is larger than the last)");
  return {first, last};
}

struct Family {
  enum class Kind { fully_connected, cluster, tree, hypercube, ring } kind;
  std::uint64_t size = 1;  ///< ports, node size or leaf fanout
};

Family parse_family(const std::string& text) {
  const std::size_t colon = text.find(':');
  const std::string name = text.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : text.substr(colon + 1);
  const auto sized = [&](Family::Kind kind, bool optional) {
    if (arg.empty() && optional) return Family{kind, 1};
    if (arg.empty())
      throw InputError("--topology-family: " + name + " needs a size (" + name + ":N)");
    const std::uint64_t n = number(arg, "--topology-family " + name);
    if (n == 0 || n > kMaxRanks)
      throw InputError("--topology-family: " + name + ":" + arg + " is not a size from 1 to " +
                       std::to_string(kMaxRanks));
    return Family{kind, n};
  };
  if (name == "fully-connected") return sized(Family::Kind::fully_connected, true);
  if (name == "cluster") return sized(Family::Kind::cluster, false);
  if (name == "tree") return sized(Family::Kind::tree, false);
  if ((name == "hypercube" || name == "ring") && colon == std::string::npos)
    return {name == "ring" ? Family::Kind::ring : Family::Kind::hypercube};
  throw InputError(
      unknown_name("--topology-family", text_escape(text),
                   std::vector<std::string>{"fully-connected", "fully-connected:K", "cluster:G",
                                            "tree:F", "hypercube", "ring"}));
}

std::vector<std::uint64_t> cluster_sizes(Rank p, std::uint64_t node) {
  std::vector<std::uint64_t> sizes(p / node, node);
  if (p % node) sizes.push_back(p % node);
  return sizes;
}

std::string join(const std::vector<std::uint64_t>& values) {
  std::string out;
  for (const std::uint64_t v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

/// The figures of a verified instance, and its verdict against its claims.
void judge_row(SweepRow& row, verify::Report report, bool contention_free_claimed) {
  const verify::Counts& n = report.counts;
  row.verified = true;
  row.phases = n.phases;
  row.c1 = n.c1;
  row.c2 = n.c2;
  row.bound_c1 = report.bound_c1;
  row.bound_c2 = report.bound_c2;
  row.gap = verify::gap(report);
  row.broken = report.broken_claims(contention_free_claimed);
  if (row.broken.empty()) {
    row.verdict = Verdict::pass;
    return;
  }
  // Broken: failed, or a check that could not decide (never a pass).
  row.verdict = Verdict::unknown;
  for (const CheckResult& c : report.checks)
    if (c.verdict == Verdict::fail && (c.id != CheckId::contention || contention_free_claimed) &&
        c.id != CheckId::bounds)
      row.verdict = Verdict::fail;
  row.report = std::move(report);
}

std::string quoted(const Parameters& fixed,
                   const std::vector<std::pair<std::string, std::uint64_t>>& values) {
  std::string out;
  for (const auto& [key, value] : fixed.entries()) out += " --set " + shell_word(key + "=" + value);
  for (const auto& [key, value] : values)
    out += " --set " + shell_word(key + "=" + std::to_string(value));
  return out;
}

/// What a sweep runs, checked before any instance.
struct Plan {
  const schedules::Algorithm* algorithm = nullptr;
  Family family;
  Parameters fixed;
  std::uint64_t settings = 1;  ///< combinations of the ranged values
};

/// A user's routine: recorded at every p through `record function` (record/sweep.hpp), one
/// mpirun per p, each run judged as `record` judges it (on record's own model of the run).
Sweep sweep_function(const SweepSpec& spec, Sweep out,
                     const std::function<void(const Sweep&, const SweepRow&)>& on_row) {
  out.subject = spec.function;
  if (spec.family != "fully-connected")
    throw InputError("--topology-family: a recorded routine is judged as `record` judges it; "
                     "give no family");
  out.family = "Open MPI processes on this machine";
  const auto [first, last] = parse_range(spec.ranks, "--ranks");
  if (first < 2 || last > record::kMaxRunRanks)
    throw InputError("--ranks: " + spec.ranks + " is beyond 2.." +
                     std::to_string(record::kMaxRunRanks) +
                     " (a recorded routine runs as that many processes on this machine)");
  out.first = static_cast<Rank>(first);
  out.last = static_cast<Rank>(last);
  record::SweepSpec recording;
  recording.level = record::Level::pmpi;
  recording.function = spec.function;
  for (const std::string& assignment : spec.set) {
    if (!assignment.starts_with("collective="))
      throw InputError("--set " + text_escape(assignment) +
                       ": a recorded routine takes collective=alltoall|allgather only");
    out.fixed.push_back(assignment);
    recording.collective = parse_collective(assignment.substr(11));
  }
  for (std::uint64_t p = first; p <= last; ++p) recording.ranks.push_back(static_cast<Rank>(p));
  recording.counts = {1};
  recording.types = {record::Types::contiguous};
  recording.inplace = {false};
  recording.timeout = spec.timeout;
  recording.progress = spec.progress;
  const std::string collective = std::string(to_string(recording.collective));
  recording.replay = [&](const std::string&, Rank p, std::uint32_t, record::Types, bool) {
    return "phasecheck record function " + shell_word(spec.function) + " --collective " +
           collective + " --ranks " + std::to_string(p) + " --counts 1";
  };
  for (record::Case& c : record::sweep(recording).cases) {
    SweepRow row;
    row.ranks = c.ranks;
    row.replay = c.replay;
    judge_row(row, std::move(c.judgement.report), false);
    on_row(out, row);
    out.rows.push_back(std::move(row));
  }
  return out;
}

}  // namespace

Verdict Sweep::verdict() const {
  std::vector<Verdict> verdicts;
  verdicts.reserve(rows.size());
  for (const SweepRow& row : rows) verdicts.push_back(row.verdict);
  return overall(verdicts);
}

Topology machine_family(const std::string& text, Rank p) {
  const Family family = parse_family(text);
  switch (family.kind) {
    case Family::Kind::fully_connected:
      return fully_connected_network(p, family.size);
    case Family::Kind::cluster:
      return cluster_network(cluster_sizes(p, family.size));
    case Family::Kind::tree:
      if (p % family.size != 0 || p == family.size)
        throw InputError(text + " is a root switch over leaf switches of " +
                         std::to_string(family.size) + " ranks: p = " + std::to_string(p) +
                         " is not a multiple of " + std::to_string(family.size) +
                         " with two or more leaves");
      return tree_network(std::vector<std::uint64_t>{p / family.size, family.size});
    case Family::Kind::hypercube:
      if (!std::has_single_bit(p))
        throw InputError("hypercube: p = " + std::to_string(p) + " is not a power of two");
      return hypercube_network(std::countr_zero(p));
    case Family::Kind::ring:
      return ring_network(p);
  }
  throw std::logic_error("machine_family: unknown kind");
}

std::string family_command(const std::string& text, Rank p) {
  const Family family = parse_family(text);
  switch (family.kind) {
    case Family::Kind::fully_connected:
      return "fully-connected --ranks " + std::to_string(p) + " --ports " +
             std::to_string(family.size);
    case Family::Kind::cluster:
      return "cluster --sizes " + join(cluster_sizes(p, family.size));
    case Family::Kind::tree:
      return "tree --fanout " + std::to_string(p / family.size) + "," + std::to_string(family.size);
    case Family::Kind::hypercube:
      return "hypercube --dimension " + std::to_string(std::countr_zero(p));
    case Family::Kind::ring:
      return "ring --ranks " + std::to_string(p);
  }
  throw std::logic_error("family_command: unknown kind");
}

Sweep sweep(const SweepSpec& spec,
            const std::function<void(const Sweep&, const SweepRow&)>& on_row) {
  Sweep out;
  out.family = spec.family;
  out.buffers = spec.buffers;
  Plan plan;
  plan.family = parse_family(spec.family);
  const int sources = !spec.algorithm.empty() + !spec.generator.empty() + !spec.function.empty();
  if (sources != 1)
    throw InputError(
        "sweep: give one of an algorithm, --generator CMD or --function LIB.so:SYMBOL");
  if (!spec.function.empty()) return sweep_function(spec, std::move(out), on_row);
  if (!spec.algorithm.empty()) {
    plan.algorithm = &schedules::require_algorithm(spec.algorithm);
    out.subject = spec.algorithm;
  } else {
    check_timeout(spec.generator_timeout, "--generator-timeout");
    out.subject = "generator '" + spec.generator + "'";
  }

  const auto [first, last] = parse_range(spec.ranks, "--ranks");
  if (first < 1 || last > kMaxSweepRanks)
    throw InputError("--ranks: " + spec.ranks + " is beyond 1.." + std::to_string(kMaxSweepRanks) +
                     " (`phasecheck check ALG --topology T` checks one larger machine)");
  out.first = static_cast<Rank>(first);
  out.last = static_cast<Rank>(last);

  for (const std::string& assignment : spec.set) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("--set: '" + text_escape(assignment) + "' is not of the form key=value");
    const std::string key = assignment.substr(0, eq), value = assignment.substr(eq + 1);
    if (!plan.algorithm)
      throw InputError("--set " + text_escape(key) +
                       ": parameters belong to a registered algorithm; a generator takes none");
    const ParameterSpec* declared = find_spec(plan.algorithm->parameter_specs, key);
    if (!declared) {
      std::vector<std::string> names;
      for (const ParameterSpec& s : plan.algorithm->parameter_specs) names.emplace_back(s.name);
      throw InputError("--set: " + unknown_name(spec.algorithm + "'s parameter", key, names));
    }
    if (value.find("..") == std::string::npos) {
      plan.fixed.set(key, value);
      out.fixed.push_back(assignment);
      continue;
    }
    if (!std::holds_alternative<UInt>(declared->type))
      throw InputError("--set " + key + "=" + text_escape(value) + ": " + key +
                       " is not a number, so it takes no range");
    const auto range = parse_range(value, "--set " + key);
    if (std::any_of(out.ranged.begin(), out.ranged.end(),
                    [&](const auto& r) { return r.first == key; }) ||
        plan.fixed.has(key))
      throw InputError("--set: parameter '" + key + "' is given twice");
    out.ranged.push_back({key, range});
    plan.settings = checked_mul(plan.settings, range.second - range.first + 1).value_or(UINT64_MAX);
  }
  const std::uint64_t per_setting = last - first + 1;
  const auto instances = checked_mul(plan.settings, per_setting);
  if (!instances || *instances > kMaxSweepInstances)
    throw InputError("sweep: " + std::to_string(per_setting) + " rank counts x " +
                     std::to_string(plan.settings) + " parameter values is more than " +
                     std::to_string(kMaxSweepInstances) + " instances");

  // Row i: setting i / per_setting (the ranged values, the first key slowest), p = first + i % ..
  const auto row_skeleton = [&](std::uint64_t i) {
    SweepRow row;
    row.ranks = static_cast<Rank>(first + i % per_setting);
    std::uint64_t setting = i / per_setting;
    row.values.resize(out.ranged.size());
    for (std::size_t k = out.ranged.size(); k-- > 0;) {
      const auto [lo, hi] = out.ranged[k].second;
      row.values[k] = {out.ranged[k].first, lo + setting % (hi - lo + 1)};
      setting /= hi - lo + 1;
    }
    return row;
  };

  const auto run_one = [&](std::uint64_t i, const launch::ScratchDirectory* scratch) {
    SweepRow row = row_skeleton(i);
    const std::string machine = "phasecheck topology " + family_command(spec.family, row.ranks);
    std::optional<Topology> machine_or;
    try {
      machine_or.emplace(machine_family(spec.family, row.ranks));
    } catch (const InputError& e) {
      row.refused = e.what();
      return row;
    }
    const Topology& model = *machine_or;
    if (plan.algorithm) {
      Parameters parameters = plan.fixed;
      for (const auto& [key, value] : row.values) parameters.set(key, std::to_string(value));
      row.replay = spec.buffers ? machine + " | phasecheck generate " + spec.algorithm +
                                      " --topology - --buffers" + quoted(plan.fixed, row.values) +
                                      " | phasecheck verify -"
                                : machine + " | phasecheck check " + spec.algorithm +
                                      " --topology -" + quoted(plan.fixed, row.values);
      Instance instance = check_instance(*plan.algorithm, model, parameters, spec.buffers);
      if (instance.not_applicable) {
        row.refused = *instance.not_applicable;
        return row;
      }
      judge_row(row, std::move(*instance.report), instance.contention_free_claimed);
      return row;
    }
    row.replay = machine + " | " + spec.generator + " | phasecheck verify -";
    std::string problem;
    const std::optional<Schedule> s = pipeline::run_generator(
        {spec.generator, "", spec.generator_timeout}, model, scratch->path(), problem);
    if (!s && problem.empty()) {
      row.refused = "the generator does not take this machine (exit 2)";
      return row;
    }
    if (!s) {  // a generator that fails on one p fails that row only
      row.verdict = Verdict::fail;
      row.broken = problem;
      return row;
    }
    const schedules::Algorithm* named = schedules::find_algorithm(s->header.algorithm);
    const bool claimed =
        named && !s->header.imported && named->contention_free_on(s->header, model);
    judge_row(row, verify::verify(*s, model, schedules::claims_for(s->header)), claimed);
    return row;
  };

  // Workers take instances in order; the caller's thread hands finished rows over in order.
  const std::uint64_t total = *instances;
  const unsigned jobs = static_cast<unsigned>(
      std::min<std::uint64_t>(spec.jobs ? spec.jobs : verify::default_threads(), total));
  std::vector<std::optional<SweepRow>> done(total);
  std::atomic<std::uint64_t> next{0};
  std::mutex mutex;
  std::condition_variable ready;
  std::exception_ptr error;
  const auto work = [&] {
    std::optional<launch::ScratchDirectory> scratch;
    if (!plan.algorithm) scratch.emplace();
    for (std::uint64_t i; (i = next++) < total;) {
      SweepRow row;
      try {
        row = run_one(i, scratch ? &*scratch : nullptr);
      } catch (...) {
        const std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        next = total;
        ready.notify_all();
        return;
      }
      const std::lock_guard lock(mutex);
      done[i] = std::move(row);
      ready.notify_all();
    }
  };
  std::vector<std::jthread> workers;
  for (unsigned j = 0; j < jobs; ++j) workers.emplace_back(work);

  ProgressMeter meter(spec.progress, "sweep " + out.subject, "instances", total);
  out.rows.reserve(total);
  for (std::uint64_t i = 0; i < total; ++i) {
    std::unique_lock lock(mutex);
    ready.wait(lock, [&] { return done[i].has_value() || error; });
    if (!done[i]) break;
    SweepRow row = std::move(*done[i]);
    done[i].reset();
    lock.unlock();
    meter.advance();
    if (row.verdict == Verdict::fail || row.verdict == Verdict::unknown) meter.finish();
    on_row(out, row);
    out.rows.push_back(std::move(row));
  }
  workers.clear();  // joins
  if (error) std::rethrow_exception(error);
  return out;
}

}  // namespace phasecheck::experiments
