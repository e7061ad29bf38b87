#include "log.h"

static FILE* jsonl_file;
static FILE* bin_file;
/// rank-R.bin's size so far: the next log_bytes offset, without an ftell per payload.
static size_t bin_size;

static FILE* open_in(const char* dir, int rank, const char* suffix) {
  char path[4096];
  int length = snprintf(path, sizeof path, "%s/rank-%d.%s", dir, rank, suffix);
  if (length < 0 || (size_t)length >= sizeof path) return NULL;
  return fopen(path, "wb");
}

int log_open(const char* dir, int rank) {
  log_close();
  jsonl_file = open_in(dir, rank, "jsonl");
  bin_file = open_in(dir, rank, "bin");
  bin_size = 0;
  if (jsonl_file == NULL || bin_file == NULL) {
    log_close();
    return -1;
  }
  return 0;
}

int log_is_open(void) { return jsonl_file != NULL; }

void log_close(void) {
  if (jsonl_file != NULL) fclose(jsonl_file);
  if (bin_file != NULL) fclose(bin_file);
  jsonl_file = NULL;
  bin_file = NULL;
}

void log_flush(void) {
  if (jsonl_file != NULL) fflush(jsonl_file);
  if (bin_file != NULL) fflush(bin_file);
}

void log_line(const char* format, ...) {
  if (jsonl_file == NULL) return;
  va_list arguments;
  va_start(arguments, format);
  vfprintf(jsonl_file, format, arguments);
  va_end(arguments);
  log_end_line();
}

struct log_span log_bytes(const void* data, size_t length) {
  struct log_span span = {bin_size, length};
  if (bin_file != NULL && length > 0) fwrite(data, 1, length, bin_file);
  bin_size += length;
  return span;
}

void log_json_string(FILE* out, const char* text) {
  fputc('"', out);
  for (const unsigned char* c = (const unsigned char*)text; *c != '\0'; ++c) {
    if (*c == '"' || *c == '\\') {
      fputc('\\', out);
      fputc(*c, out);
    } else if (*c < 0x20 || *c >= 0x80) {
      // Bytes >= 0x80 as \u00XX (Latin-1): the library text need not be valid UTF-8, the line must.
      fprintf(out, "\\u%04x", (unsigned)*c);
    } else {
      fputc(*c, out);
    }
  }
  fputc('"', out);
}

FILE* log_stream(void) { return jsonl_file; }

void log_end_line(void) {
  if (jsonl_file == NULL) return;
  fputc('\n', jsonl_file);
  // Each line on disk as it is written, after the bytes it points at: a routine that crashes,
  // hangs or aborts leaves its recording up to that point (a few lines per message: cheap).
  log_flush();
}
