// `phasecheck traffic MODEL`: a traffic matrix built by a model (experiments/traffic_models.hpp),
// or read from a file, written as phasecheck.traffic/1 JSON or as CSV (io/traffic.hpp).

#include "io/traffic.hpp"
#include "cli/command.hpp"
#include "cli/options.hpp"
#include "core/files.hpp"
#include "experiments/traffic_models.hpp"

namespace phasecheck::cli {
namespace {

struct Options {
  std::string model;  ///< one of experiments/traffic_models.hpp's traffic_models()
  experiments::TrafficModelOptions traffic;  ///< each set only when given
  std::string output;                        ///< file; empty or "-" for standard output
  std::string format = "json";               ///< json | csv
};

void add_options(CLI::App& app, Options& options) {
  std::string models_help;
  std::vector<std::string> models;
  for (const experiments::TrafficModel& model : experiments::traffic_models()) {
    models_help += "\n  " + std::string(model.name) + ": " + std::string(model.summary);
    models.emplace_back(model.name);
  }
  app.add_option("model", options.model, "The matrix:" + models_help)
      ->required()
      ->check(one_of(models));
  experiments::TrafficModelOptions& t = options.traffic;
  app.add_option("--ranks", t.ranks, "uniform, random, moe: the ranks p")->check(natural());
  app.add_option("--count", t.count, "uniform: elements in every cell (default 1)")
      ->check(natural());
  app.add_option("--max-count", t.max_count, "random: the largest count (default 100)")
      ->check(natural());
  app.add_option("--zero-fraction", t.zero_fraction,
                 "random: the probability that a cell is 0 (default 0)");
  bytes_option(app.add_option("--element-bytes", t.element_bytes,
                              "uniform, random: bytes of an element (default 1); file: of a "
                              "CSV's, or a JSON file's, which must agree"));
  app.add_option("--experts", t.experts, "moe: the experts E, a multiple of --ranks")
      ->check(natural());
  app.add_option("--top-k", t.top_k, "moe: distinct experts per token K")->check(natural());
  app.add_option("--tokens", t.tokens, "moe: tokens per rank T")->check(natural());
  bytes_option(app.add_option("--hidden", t.hidden, "moe: bytes of a token (the element size)"));
  app.add_option("--zipf", t.zipf, "moe: the Zipf exponent S of expert popularity (default 0)");
  app.add_option("--seed", t.seed, "random, moe: the seed (default 1)")->check(natural());
  app.add_flag("--dedup", t.dedup, "moe: a token once per destination rank (DeepEP's dispatch)");
  app.add_flag("--combine", t.combine, "moe: the return trip (the transpose)");
  app.add_option("--input", t.input, "file: the traffic file, JSON or CSV (- : standard input)");
  app.add_option("-o,--output", options.output, "Output file (default: standard output)");
  app.add_option("--format", options.format, "json (default: phasecheck.traffic/1) or csv")
      ->check(one_of({"json", "csv"}));
}

int run(const Options& options, const Streams& streams) {
  std::vector<std::string> inputs;
  if (options.traffic.input) inputs.push_back(*options.traffic.input);
  if (!options.output.empty()) check_output(options.output, inputs);
  const Traffic traffic = experiments::build_traffic_model(options.model, options.traffic);
  const auto write = [&](std::ostream& os) {
    if (options.format == "csv") {
      io::write_traffic_csv(os, traffic);
      return;
    }
    io::write_traffic_json(os, traffic);
    os << '\n';
  };
  if (options.output.empty())
    write(streams.out);
  else
    write_output(options.output, write, inputs);
  return 0;
}

constexpr CommandDefinition<Options> definition{
    .name = "traffic",
    .summary =
        "Write a traffic matrix for alltoallv (uniform, random, a mixture-of-experts dispatch), "
        "or check and convert a traffic file; docs/traffic.md",
    .formats = {},
    .add_options = add_options,
    .run = run,
};

}  // namespace

extern const Command traffic_command;
const Command traffic_command = definition;

}  // namespace phasecheck::cli
