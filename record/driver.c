/// phasecheck-record-driver: runs MPI_Alltoall / MPI_Allgather (level pml) or a user's routine of
/// the same signature (level pmpi) on tagged buffers, once per --case, and writes each case's
/// recording (/work/notes/recording35.md). Started by `phasecheck record` under mpirun.
#include <dlfcn.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buffers.h"
#include "events.h"
#include "log.h"
#include "tap.h"

/// The signature shared by MPI_Alltoall and MPI_Allgather, and so by a user's routine.
typedef int (*collective_fn)(const void*, int, MPI_Datatype, void*, int, MPI_Datatype, MPI_Comm);

struct one_case {
  int count;
  const char* types;
  int in_place;
  const char* dir;
};

struct options {
  int pmpi;
  const char* function;
  int allgather;
  struct one_case* cases;
  int case_count;
  unsigned deadline;  ///< seconds one call may take; 0: none
};

enum {
  exit_ran = 0,
  exit_bad_arguments = 2,
  exit_internal = 3,
  exit_not_recordable = 5,
  exit_deadline = 6
};

/// A call that passes its deadline (a deadlock, a routine that never returns) ends the rank
/// at once: mpirun then ends the others, and phasecheck judges the case's recording so far.
static void deadline_passed(int signal_number) {
  (void)signal_number;
  static const char message[] =
      "phasecheck-record-driver: the call did not return before its deadline (a deadlock?)\n";
  ssize_t ignored = write(STDERR_FILENO, message, sizeof message - 1);
  (void)ignored;
  _exit(exit_deadline);
}

/// The cases' COUNT,TYPES,INPLACE,DIR; the strings point into ARGUMENT (modified in place).
static int parse_case(char* argument, struct one_case* parsed) {
  char* fields[4];
  char* rest = argument;
  for (int i = 0; i < 3; ++i) {
    char* comma = strchr(rest, ',');
    if (comma == NULL) return -1;
    *comma = '\0';
    fields[i] = rest;
    rest = comma + 1;
  }
  fields[3] = rest;
  char* end = NULL;
  long count = strtol(fields[0], &end, 10);
  if (end == fields[0] || *end != '\0' || count < 0 || count >= (1L << 24)) return -1;
  if (!buffers_types_known(fields[1])) return -1;
  if (strcmp(fields[2], "0") != 0 && strcmp(fields[2], "1") != 0) return -1;
  if (access(fields[3], W_OK) != 0) return -1;
  *parsed = (struct one_case){(int)count, fields[1], fields[2][0] == '1', fields[3]};
  return 0;
}

/// 0, or -1 with a message on stderr when NOISY (rank 0 only: one message, not one per rank).
static int parse(int argc, char** argv, struct options* options, int noisy) {
  *options = (struct options){0};
  options->cases = calloc((size_t)argc, sizeof *options->cases);
  int level_given = 0, collective_given = 0;
  for (int i = 1; i < argc; ++i) {
    const char* name = argv[i];
    if (i + 1 >= argc) {
      if (noisy) fprintf(stderr, "phasecheck-record-driver: %s needs a value\n", name);
      return -1;
    }
    char* value = argv[++i];
    char shown[256];  // parse_case cuts VALUE at its commas
    snprintf(shown, sizeof shown, "%s", value);
    if (strcmp(name, "--level") == 0 && (strcmp(value, "pml") == 0 || strcmp(value, "pmpi") == 0)) {
      options->pmpi = strcmp(value, "pmpi") == 0;
      level_given = 1;
    } else if (strcmp(name, "--function") == 0 && strchr(value, ':') != NULL) {
      options->function = value;
    } else if (strcmp(name, "--collective") == 0 &&
               (strcmp(value, "alltoall") == 0 || strcmp(value, "allgather") == 0)) {
      options->allgather = strcmp(value, "allgather") == 0;
      collective_given = 1;
    } else if (strcmp(name, "--deadline") == 0 && atoi(value) > 0) {
      options->deadline = (unsigned)atoi(value);
    } else if (strcmp(name, "--case") == 0 &&
               parse_case(value, &options->cases[options->case_count]) == 0) {
      ++options->case_count;
    } else {
      if (noisy) fprintf(stderr, "phasecheck-record-driver: bad %s '%s'\n", name, shown);
      return -1;
    }
  }
  if (!level_given || !collective_given || options->case_count == 0 ||
      options->pmpi != (options->function != NULL)) {
    if (noisy)
      fprintf(stderr,
              "usage: phasecheck-record-driver --level pml|pmpi [--function LIB.so:SYMBOL] "
              "--collective alltoall|allgather [--deadline SECONDS] "
              "--case COUNT,TYPES,INPLACE,DIR [--case ...]\n"
              "(--function exactly with --level pmpi; DIR an existing writable directory)\n");
    return -1;
  }
  return 0;
}

/// MPI_Get_library_version's first line.
static void library_line(char* line) {
  int length = 0;
  PMPI_Get_library_version(line, &length);
  line[strcspn(line, "\n")] = '\0';
}

/// The routine of FUNCTION ("LIB.so:SYMBOL"), or NULL with dlerror's message in WHY.
static collective_fn load(const char* function, char* why, size_t why_size) {
  char path[4096];
  const char* colon = strrchr(function, ':');
  snprintf(path, sizeof path, "%.*s", (int)(colon - function), function);
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    snprintf(why, why_size, "%s", dlerror());
    return NULL;
  }
  dlerror();
  void* symbol = dlsym(library, colon + 1);
  if (symbol == NULL) {
    const char* error = dlerror();
    snprintf(why, why_size, "%s", error != NULL ? error : "symbol is NULL");
    return NULL;
  }
  collective_fn routine;
  memcpy(&routine, &symbol, sizeof routine);  // object to function pointer: POSIX allows it
  return routine;
}

static void write_allocation(FILE* out, const char* name, const struct buffers_allocation* a) {
  struct log_span layout = log_bytes(a->offsets, a->elements * 8);
  fprintf(out, "\"%s\":{\"base\":%ju,\"bytes\":%zu,\"layout\":[%zu,%zu]}", name,
          (uintmax_t)(uintptr_t)a->base, a->bytes, layout.offset, layout.length);
}

static void write_header(const struct options* options, const struct one_case* c, int rank,
                         int ranks, const char* library, const struct buffers_allocation* send,
                         const struct buffers_allocation* recv) {
  FILE* out = log_stream();
  fprintf(out,
          "{\"format\":\"phasecheck.recording/1\",\"rank\":%d,\"ranks\":%d,\"collective\":\"%s\","
          "\"count\":%d,\"types\":\"%s\",\"inplace\":%s,\"level\":\"%s\",\"library\":",
          rank, ranks, options->allgather ? "allgather" : "alltoall", c->count, c->types,
          c->in_place ? "true" : "false", options->pmpi ? "pmpi" : "pml");
  log_json_string(out, library);
  fputs(",\"routine\":", out);
  log_json_string(out, options->pmpi        ? strrchr(options->function, ':') + 1
                       : options->allgather ? "MPI_Allgather"
                                            : "MPI_Alltoall");
  fputc(',', out);
  if (send != NULL)
    write_allocation(out, "send", send);
  else
    fputs("\"send\":null", out);
  fputc(',', out);
  write_allocation(out, "recv", recv);
  fputc('}', out);
  log_end_line();
}

/// The tagged contents before the call: the send elements, and the receive buffer's unwritten
/// marks (0xDB) or, in place, the rank's own input.
static void fill(const struct options* options, int count, int in_place, int rank,
                 struct buffers_allocation* send, struct buffers_allocation* recv) {
  for (size_t i = 0; send != NULL && i < send->elements; ++i) {
    uint64_t dest = options->allgather ? BUFFERS_EVERY_RANK : i / (size_t)count;
    uint64_t index = options->allgather ? i : i % (size_t)count;
    buffers_set(send, i, buffers_tag((uint64_t)rank, dest, index));
  }
  for (size_t i = 0; i < recv->elements; ++i) {
    size_t block = i / (size_t)count, index = i % (size_t)count;
    uint64_t value = 0xDBDBDBDBDBDBDBDBu;
    if (in_place && !options->allgather) value = buffers_tag((uint64_t)rank, block, index);
    if (in_place && options->allgather && block == (size_t)rank)
      value = buffers_tag((uint64_t)rank, BUFFERS_EVERY_RANK, index);
    buffers_set(recv, i, value);
  }
}

static void write_end(const char* status, const char* error) {
  FILE* out = log_stream();
  fprintf(out, "{\"ev\":\"end\",\"status\":\"%s\"", status);
  if (error != NULL) {
    fputs(",\"error\":", out);
    log_json_string(out, error);
  }
  fputc('}', out);
  log_end_line();
}

static void write_final(const struct buffers_allocation* send,
                        const struct buffers_allocation* recv) {
  struct log_span recv_final = log_bytes(recv->base, recv->bytes);
  if (send == NULL) {
    log_line("{\"ev\":\"final\",\"send\":null,\"recv\":[%zu,%zu]}", recv_final.offset,
             recv_final.length);
    return;
  }
  struct log_span send_final = log_bytes(send->base, send->bytes);
  log_line("{\"ev\":\"final\",\"send\":[%zu,%zu],\"recv\":[%zu,%zu]}", send_final.offset,
           send_final.length, recv_final.offset, recv_final.length);
}

/// Calls the collective (level pml, with the PML tap) or the routine (level pmpi, recorded).
static int call_now(const struct options* options, collective_fn routine,
                    const void* send_buffer, void* recv_buffer,
                    const struct buffers_types* types) {
  if (options->pmpi) {
    tap_pmpi_enable(1);
    int rc = routine(send_buffer, types->send_count, types->send_type, recv_buffer,
                     types->recv_count, types->recv_type, MPI_COMM_WORLD);
    tap_pmpi_enable(0);
    return rc;
  }
  collective_fn collective = options->allgather ? MPI_Allgather : MPI_Alltoall;
  tap_pml_install();
  int rc = collective(send_buffer, types->send_count, types->send_type, recv_buffer,
                      types->recv_count, types->recv_type, MPI_COMM_WORLD);
  tap_pml_remove();
  return rc;
}

/// call_now under the deadline.
static int call(const struct options* options, collective_fn routine, const void* send_buffer,
                void* recv_buffer, const struct buffers_types* types) {
  signal(SIGALRM, deadline_passed);
  alarm(options->deadline);
  int rc = call_now(options, routine, send_buffer, recv_buffer, types);
  alarm(0);
  return rc;
}

/// Runs one case: the collective's return code, or -1 when the routine could not be loaded (WHY
/// says why). Either ends the mpirun's cases.
static int run_case(const struct options* options, const struct one_case* c, collective_fn routine,
                    const char* why, int rank, int ranks, const char* library) {
  struct buffers_types types = buffers_types_make(c->types, c->count);
  struct buffers_allocation send = {0};
  struct buffers_allocation* sent = c->in_place ? NULL : &send;
  if (sent != NULL)
    send = buffers_allocate(types.send_type, types.send_count, options->allgather ? 1 : ranks);
  struct buffers_allocation recv = buffers_allocate(types.recv_type, types.recv_count, ranks);
  fill(options, c->count, c->in_place, rank, sent, &recv);
  write_header(options, c, rank, ranks, library, sent, &recv);
  int rc = -1;
  if (options->pmpi && routine == NULL) {
    write_end("unloadable", why);
  } else {
    events_begin();
    // Every rank starts the case together: a slow rank's previous case cannot be in the window.
    PMPI_Barrier(MPI_COMM_WORLD);
    rc = call(options, routine,
              sent != NULL ? (const void*)(send.base + BUFFERS_GUARD) : MPI_IN_PLACE,
              recv.base + BUFFERS_GUARD, &types);
    write_final(sent, &recv);
    char error[MPI_MAX_ERROR_STRING + 1] = "";
    int length = 0;
    if (rc != MPI_SUCCESS) PMPI_Error_string(rc, error, &length);
    write_end(rc == MPI_SUCCESS ? "ok" : "error", rc == MPI_SUCCESS ? NULL : error);
  }
  if (sent != NULL) buffers_free(&send);
  buffers_free(&recv);
  buffers_types_free(&types);
  return rc;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // An algorithm that refuses the case (two procs beyond 2 ranks) returns its error instead of
  // aborting the job: the case says "error" and the next mpirun goes on.
  PMPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  struct options options;
  // An element's tag holds origin and dest in 16 bits each, 0xFFFF meaning "every rank".
  if (ranks >= 0xFFFF) {
    if (rank == 0) fprintf(stderr, "phasecheck-record-driver: at most 65534 ranks\n");
    MPI_Finalize();
    return exit_bad_arguments;
  }
  if (parse(argc, argv, &options, rank == 0) != 0) {
    MPI_Finalize();
    return exit_bad_arguments;
  }
  char library[MPI_MAX_LIBRARY_VERSION_STRING + 1];
  library_line(library);
  if (!options.pmpi && strncmp(library, "Open MPI v4.1.", strlen("Open MPI v4.1.")) != 0) {
    if (rank == 0)
      fprintf(stderr,
              "phasecheck-record-driver: level pml records Open MPI 4.1 only (its PML and "
              "request tables); this library is: %s\n",
              library);
    MPI_Finalize();
    return exit_not_recordable;
  }
  collective_fn routine = NULL;
  char why[4096] = "";
  if (options.pmpi) routine = load(options.function, why, sizeof why);
  for (int i = 0; i < options.case_count; ++i) {
    const struct one_case* c = &options.cases[i];
    if (log_open(c->dir, rank) != 0) {
      fprintf(stderr, "phasecheck-record-driver: cannot write rank-%d files in %s\n", rank, c->dir);
      PMPI_Abort(MPI_COMM_WORLD, exit_internal);
    }
    int rc = run_case(&options, c, routine, why, rank, ranks, library);
    log_close();
    if (rc != MPI_SUCCESS) break;
  }
  free(options.cases);
  MPI_Finalize();
  return exit_ran;
}
