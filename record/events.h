/// The event lines of a recording (send, recv, complete), common to the PML and the PMPI taps:
/// request numbering, payload packing at the post and at the completion, and the table that maps a
/// live request to what was posted with it.
#ifndef PHASECHECK_RECORD_EVENTS_H
#define PHASECHECK_RECORD_EVENTS_H

#include <mpi.h>
#include <stddef.h>

enum events_kind { events_send, events_recv };

/// Starts a case: request numbers start again from 0 and the table is emptied.
void events_begin(void);

/// Writes a send or recv line for a message posted now and returns its slot for
/// events_complete_slot. KEY is the request it was posted with (NULL for a blocking call, which
/// the caller completes itself). A send's payload is packed here, before the buffer may change.
int events_post(enum events_kind kind, const void* key, const void* buf, size_t count,
                MPI_Datatype type, int peer, int tag, int blocking);

/// Remembers a persistent request (isend_init / irecv_init) without writing a line: each start
/// (events_start) is a new post with a new number.
void events_define_persistent(enum events_kind kind, const void* key, const void* buf, size_t count,
                              MPI_Datatype type, int peer, int tag);
/// A persistent request KEY was started: writes its post line. Unknown keys are ignored.
void events_start(const void* key);

/// The slot of the oldest active (posted, not yet completed) request KEY, or -1 (a request that was
/// not posted while recording, MPI_REQUEST_NULL, an inactive persistent request).
int events_find(const void* key);
/// Writes the complete line of SLOT: STATUS (may be NULL for a send) gives a receive's source,
/// tag and byte count; the buffer is packed again now. A non-persistent slot is freed.
void events_complete_slot(int slot, const MPI_Status* status);
/// events_complete_slot(events_find(KEY), STATUS) when KEY is active; nothing otherwise.
void events_complete(const void* key, const MPI_Status* status);
/// Forgets KEY (MPI_Request_free): its completion will not be seen.
void events_forget(const void* key);

#endif
