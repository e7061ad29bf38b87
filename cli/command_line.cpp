// The command line: the program's own options, then every command of the table
// (cli/command_table.hpp) as a subcommand with the options its file declares; a misspelled
// command or option gets "did you mean"; the command given runs, and its errors become exit codes.

#include "cli/command_line.hpp"

#include <iostream>
#include <new>
#include <stdexcept>

#include "cli/command_table.hpp"
#include "cli/options.hpp"
#include "core/error.hpp"
#include "core/escape.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/suggest.hpp"
#include "distributed/processes.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::cli {

namespace {

/// Help without the renamed options (docs/cli.md, "Renamed options").
class Formatter : public CLI::Formatter {
 public:
  std::string make_group(std::string group, bool is_positional,
                         std::vector<const CLI::Option*> opts) const override {
    if (group == renamed_group) return {};
    return CLI::Formatter::make_group(std::move(group), is_positional, std::move(opts));
  }
};

/// The long option names of a command ("--topology", ...), for "did you mean".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options())
    if (option->get_group() != renamed_group)
      for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
  return names;
}

/// A message naming the closest command or option for a misspelled one, or "" when CLI11's own
/// message is the better one.
std::string suggestion(const CLI::App& app, const CLI::ParseError& error, int argc,
                       const char* const* argv) {
  std::vector<std::string> commands;
  for (const CLI::App* subcommand : app.get_subcommands([](const CLI::App*) { return true; }))
    commands.push_back(subcommand->get_name());
  const CLI::App* active = nullptr;
  for (const CLI::App* subcommand : app.get_subcommands()) active = subcommand;
  if (!active) {  // no command recognised: the first word that is not an option is the typo
    for (int i = 1; i < argc; ++i) {
      const std::string_view word = argv[i];
      if (word.starts_with("-")) {
        if (word.find('=') == std::string_view::npos && i + 1 < argc &&
            !std::string_view(argv[i + 1]).starts_with("-") && word.starts_with("--max-"))
          ++i;  // a global limit's value
        continue;
      }
      return unknown_name("command", word, commands);
    }
    return {};
  }
  if (dynamic_cast<const CLI::ExtrasError*>(&error) == nullptr) return {};
  std::string message;
  const std::vector<std::string> names = option_names(*active);
  // Unknown words of a command reach the top level, which refuses them.
  for (const std::string& extra : app.remaining(true)) {
    if (!extra.starts_with("-")) continue;
    const std::string flag = extra.substr(0, extra.find('='));
    message += (message.empty() ? "" : "\n") +
               unknown_name("option", flag, names).insert(0, active->get_name() + ": ");
  }
  return message;
}

/// --report takes the formats the command's renderer declares and no other: anything else is
/// refused while parsing, before the command does any work.
void restrict_report(CLI::App& subcommand, std::span<const reports::ReportFormat> formats) {
  CLI::Option* report = subcommand.get_option_no_throw("--report");
  if ((report == nullptr) != formats.empty())
    throw std::logic_error(subcommand.get_name() +
                           ": a command has --report exactly when it declares its formats");
  if (report) report->type_name("TEXT")->transform(report_format(formats));
}

/// An error ends this process with `code`; under mpirun it ends the others too, which may be
/// waiting for this one's findings (distributed/processes.hpp).
int stop(int code, std::ostream& out, std::ostream& err) {
  out.flush();
  err.flush();
  distributed::abort_if_spread(code);
  return code;
}

}  // namespace

struct CommandLine::Impl {
  std::unique_ptr<CLI::App> app;
  Limits limits;
  OutputSettings output;
  /// A command of the table declared as a subcommand, with the values of its options.
  struct Declared {
    CLI::App* subcommand;
    std::unique_ptr<Invocation> invocation;
  };
  std::vector<Declared> commands;

  Impl();
  /// The command given on the command line (after parse()), or nullptr.
  const Declared* given() const;
  /// The message on standard error, and the requested report saying so.
  void report_error(const std::string& message, std::ostream& out, std::ostream& err) const;
};

CommandLine::Impl::Impl() {
  app = std::make_unique<CLI::App>(
      "phasecheck: generate and formally check all-to-all communication schedules.\n"
      "Exit codes: 0 pass (every check that applies passed; one that does not apply is shown "
      "as n/a), 1 a check failed or could not decide, or nothing was checked, 2 bad input or "
      "usage, 3 internal error.\n"
      "Any file argument may be - for standard input (one per command), and any -o - for "
      "standard output.");
  app->formatter(std::make_shared<Formatter>());
  app->require_subcommand(1);
  app->set_version_flag("--version", "phasecheck 0.1.0");
  // Limits of every command (core/limits.hpp, docs/limits.md), given before or after it.
  app->fallthrough();
  app->add_option("--max-input-size", limits.max_input_bytes,
                  "Largest input file read, in bytes (suffixes k, m, g; default 1g)")
      ->transform(CLI::AsSizeValue(false))
      ->envname("PHASECHECK_MAX_INPUT_SIZE");
  app->add_option("--max-memory", limits.max_memory_bytes,
                  "Most memory the state sized by an input may take, in bytes (suffixes k, m, "
                  "g; default a quarter of physical memory)")
      ->transform(CLI::AsSizeValue(false))
      ->envname("PHASECHECK_MAX_MEMORY");
  app->add_flag("--follow-output-links", output.follow_links,
                "Write through a symbolic link in the current directory that leads out of it "
                "(refused by default: docs/limits.md, Outputs)")
      ->envname("PHASECHECK_FOLLOW_OUTPUT_LINKS");

  for (const Command* command : command_table()) {
    CLI::App* subcommand =
        app->add_subcommand(std::string(command->name), std::string(command->summary));
    std::unique_ptr<Invocation> invocation = command->add_options(*subcommand);
    restrict_report(*subcommand, command->formats);
    commands.push_back({subcommand, std::move(invocation)});
  }
}

const CommandLine::Impl::Declared* CommandLine::Impl::given() const {
  for (const Declared& declared : commands)
    if (*declared.subcommand) return &declared;
  return nullptr;
}

CommandLine::CommandLine() : impl_(std::make_unique<Impl>()) {}
CommandLine::~CommandLine() = default;

std::optional<int> CommandLine::parse(int argc, const char* const* argv, std::ostream& out,
                                      std::ostream& err) {
  try {
    impl_->app->parse(argc, argv);
    set_limits(impl_->limits);
    set_output_settings(impl_->output);
    if (const Impl::Declared* declared = impl_->given())
      for (const CLI::Option* option : declared->subcommand->get_options())
        if (option->get_group() == renamed_group && option->count() > 0)
          err << "phasecheck: note: " << option->get_name() << " is now "
              << option->get_description() << "; the old name goes away in the next release\n";
  } catch (const CLI::ParseError& error) {
    if (const std::string better = suggestion(*impl_->app, error, argc, argv); !better.empty()) {
      err << "phasecheck: error: " << better << "\nRun with --help for more information.\n";
      return 2;
    }
    const int code = impl_->app->exit(error, out, err);
    return code == 0 ? 0 : 2;
  }
  return std::nullopt;
}

void CommandLine::Impl::report_error(const std::string& message, std::ostream& out,
                                     std::ostream& err) const {
  // A message quotes its input (names, labels, another program's standard error): its own line
  // breaks stay, every control and bidirectional control is shown, not obeyed (core/escape.hpp).
  err << "phasecheck: error: " << text_escape(message, Newlines::keep) << "\n";
  const Declared* declared = given();
  if (!declared) return;
  const std::optional<ErrorReport> target = declared->invocation->error_report();
  // A text or CSV report has no place for an error: the message on standard error is all.
  if (!target || target->format == reports::ReportFormat::text ||
      target->format == reports::ReportFormat::csv)
    return;
  const std::string text = reports::render_error(target->format, declared->subcommand->get_name(),
                                                 input_name(target->source), message);
  if (target->output.empty() || target->output == "-") {
    out << text;
    return;
  }
  const std::vector<std::string> inputs = target->source.empty() || target->source == "-"
                                              ? std::vector<std::string>{}
                                              : std::vector<std::string>{target->source};
  try {
    write_output(target->output, [&](std::ostream& os) { os << text; }, inputs);
  } catch (const std::exception& error) {  // the output itself is the problem: standard output
    err << "phasecheck: error: " << text_escape(error.what(), Newlines::keep) << "\n";
    out << text;
  }
}

int CommandLine::run(std::ostream& out, std::ostream& err) {
  try {
    if (const Impl::Declared* declared = impl_->given())
      return declared->invocation->run({out, err});
  } catch (const InputError& error) {
    impl_->report_error(error.what(), out, err);
    return stop(2, out, err);
  } catch (const std::bad_alloc&) {
    impl_->report_error("not enough memory for this input", out, err);
    return stop(2, out, err);
  } catch (const std::exception& error) {
    err << "phasecheck: internal error: " << text_escape(error.what(), Newlines::keep) << "\n";
    return stop(3, out, err);
  }
  return 2;
}

}  // namespace phasecheck::cli
