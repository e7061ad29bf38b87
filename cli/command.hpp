#pragma once
/// The shape of every phasecheck command. One file in cli/ per command (cli/verify.cpp, ...)
/// reads like its help text: its options, the one library call it makes, the one renderer it
/// prints with; it exports one `Command`. cli/command_table.cpp lists them all, and the command
/// line (cli/command_line.cpp) loops over that table: it declares every command's options, refuses
/// a --report format the command's renderer does not declare before any work, runs the command
/// given, and turns its errors into exit codes and the requested error report.

#include <iosfwd>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "report/format.hpp"

namespace CLI {
class App;
}

namespace phasecheck::cli {

/// Where a command prints: its answer on `out`; notes and progress on `err`.
struct Streams {
  std::ostream& out;
  std::ostream& err;
};

/// Where the report of an error before the command's own report goes (reports::render_error):
/// in `format`, to the file `output` (empty or "-": standard output), naming `source` (the input
/// given, or the command's name when there is no single one).
struct ErrorReport {
  reports::ReportFormat format;
  std::string output;
  std::string source;
};

/// A command's options declared on its subcommand: the values CLI11 fills while parsing, and the
/// command that runs with them.
class Invocation {
 public:
  virtual ~Invocation() = default;
  /// Runs the command with the parsed values: its exit code (0 pass, 1 a check failed); throws
  /// InputError for bad input (exit 2).
  virtual int run(const Streams& streams) const = 0;
  /// Where an error before the report goes; nullopt for a command without --report.
  virtual std::optional<ErrorReport> error_report() const = 0;
};

/// One command as its file defines it, over its own `Options`: a plain struct of the values its
/// options take, with their defaults.
template <class Options>
struct CommandDefinition {
  std::string_view name;     ///< `phasecheck NAME`
  std::string_view summary;  ///< its line in `phasecheck --help`
  /// What --report takes: the constant its renderer declares next to its render function
  /// (report/*.hpp). Empty: the command has no --report.
  std::span<const reports::ReportFormat> formats;
  /// Declares the options on the command's subcommand, in the order its help lists them.
  void (*add_options)(CLI::App& app, Options& options);
  /// The command: one library call, one renderer.
  int (*run)(const Options& options, const Streams& streams);
  /// With --report: where an error before the report goes.
  ErrorReport (*error_report)(const Options& options) = nullptr;
};

/// A command as the table holds it, whatever its options' type.
class Command {
 public:
  /// Implicit, so that a command file ends with `const Command NAME_command = definition;`.
  template <class Options>
  constexpr Command(const CommandDefinition<Options>& definition)
      : name(definition.name),
        summary(definition.summary),
        formats(definition.formats),
        definition_(&definition),
        declare_(&declare<Options>) {}

  std::string_view name;
  std::string_view summary;
  std::span<const reports::ReportFormat> formats;

  /// Declares the command's options on its subcommand `app`; the result holds their values.
  std::unique_ptr<Invocation> add_options(CLI::App& app) const {
    return declare_(definition_, app);
  }

 private:
  template <class Options>
  class Declared final : public Invocation {
   public:
    Declared(const CommandDefinition<Options>& definition, CLI::App& app)
        : definition_(definition) {
      definition.add_options(app, options_);
    }
    int run(const Streams& streams) const override { return definition_.run(options_, streams); }
    std::optional<ErrorReport> error_report() const override {
      if (!definition_.error_report) return std::nullopt;
      return definition_.error_report(options_);
    }

   private:
    const CommandDefinition<Options>& definition_;
    Options options_;
  };

  template <class Options>
  static std::unique_ptr<Invocation> declare(const void* definition, CLI::App& app) {
    return std::make_unique<Declared<Options>>(
        *static_cast<const CommandDefinition<Options>*>(definition), app);
  }

  // The definition's type is erased so that one table holds every command; `declare_` is the
  // one function that knows it.
  const void* definition_;
  std::unique_ptr<Invocation> (*declare_)(const void* definition, CLI::App& app);
};

}  // namespace phasecheck::cli
