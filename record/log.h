/// The recording's two files of one rank and one case (/work/notes/recording35.md):
/// DIR/rank-R.jsonl, one JSON object a line, and DIR/rank-R.bin, the raw bytes the lines point at
/// as [offset, length]. One recording is open at a time (a rank runs its cases in order).
#ifndef PHASECHECK_RECORD_LOG_H
#define PHASECHECK_RECORD_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

/// Where some bytes went in rank-R.bin.
struct log_span {
  size_t offset;
  size_t length;
};

/// Opens (truncates) DIR/rank-R.jsonl and DIR/rank-R.bin; 0 on success, -1 with errno set.
int log_open(const char* dir, int rank);
/// Whether a recording is open (the taps write only then).
int log_is_open(void);
/// Flushes and closes both files; harmless when none is open.
void log_close(void);
/// Flushes both files without closing them: before MPI_Abort, which does not return.
void log_flush(void);

/// Appends one JSON Lines line, printf-style, and flushes both files (the line and the bytes it
/// points at survive a crash); the caller supplies no newline.
void log_line(const char* format, ...) __attribute__((format(printf, 1, 2)));
/// Appends LENGTH bytes to rank-R.bin.
struct log_span log_bytes(const void* data, size_t length);

/// Writes TEXT as a JSON string (quotes included) to OUT; control characters and bytes >= 0x80
/// are escaped as \u00XX, so the line stays valid JSON whatever the library prints.
void log_json_string(FILE* out, const char* text);
/// The .jsonl stream, for a line built in several pieces (end it with log_end_line).
FILE* log_stream(void);
/// Ends a line built on log_stream() and flushes as log_line does.
void log_end_line(void);

#endif
