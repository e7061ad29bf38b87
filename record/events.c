#include "events.h"

#include <stdint.h>
#include <stdlib.h>

#include "log.h"

struct entry {
  int used;
  const void* key;
  enum events_kind kind;
  const void* buf;
  size_t count;
  MPI_Datatype type;
  int peer;
  int tag;
  int persistent;
  int active;
  long id;
};

static struct entry* entries;
static int entry_capacity;
static long next_id;

void events_begin(void) {
  next_id = 0;
  for (int slot = 0; slot < entry_capacity; ++slot) entries[slot].used = 0;
}

static int new_slot(void) {
  for (int slot = 0; slot < entry_capacity; ++slot)
    if (!entries[slot].used) return slot;
  int grown = entry_capacity == 0 ? 64 : 2 * entry_capacity;
  struct entry* more = realloc(entries, (size_t)grown * sizeof *entries);
  if (more == NULL) abort();
  for (int slot = entry_capacity; slot < grown; ++slot) more[slot].used = 0;
  entries = more;
  int slot = entry_capacity;
  entry_capacity = grown;
  return slot;
}

/// Keys are not unique: Open MPI's ob1 returns the one static, already complete
/// `ompi_request_empty` for every isend it sends inline (short messages), so several active posts
/// may share a key. A wait on it completes the oldest; a persistent definition is found by key.
static int active_slot_of(const void* key) {
  int found = -1;
  if (key == NULL) return -1;
  for (int slot = 0; slot < entry_capacity; ++slot)
    if (entries[slot].used && entries[slot].active && entries[slot].key == key &&
        (found < 0 || entries[slot].id < entries[found].id))
      found = slot;
  return found;
}

/// The persistent request KEY; a pointer reused after ompi_request_free replaces a stale one.
static int persistent_slot_of(const void* key) {
  for (int slot = 0; slot < entry_capacity; ++slot)
    if (entries[slot].used && entries[slot].persistent && entries[slot].key == key) return slot;
  return -1;
}

/// MPI_Pack of (BUF, COUNT, TYPE) into rank-R.bin. PMPI_ so that the PMPI tap's own wrappers and
/// any other tool see nothing.
static struct log_span pack(const void* buf, size_t count, MPI_Datatype type) {
  int size = 0;
  PMPI_Pack_size((int)count, type, MPI_COMM_WORLD, &size);
  void* packed = malloc(size > 0 ? (size_t)size : 1);
  if (packed == NULL) abort();
  int position = 0;
  if (count > 0) PMPI_Pack(buf, (int)count, type, packed, size, &position, MPI_COMM_WORLD);
  struct log_span span = log_bytes(packed, (size_t)position);
  free(packed);
  return span;
}

/// [lo, hi): the bytes COUNT items of TYPE at BUF touch (true lower bound and true extent).
static void span_of(const void* buf, size_t count, MPI_Datatype type, uintptr_t* lo,
                    uintptr_t* hi) {
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  *lo = (uintptr_t)buf;
  *hi = (uintptr_t)buf;
  if (count == 0) return;
  *lo = (uintptr_t)buf + (uintptr_t)true_lb;
  *hi = *lo + (uintptr_t)((MPI_Aint)(count - 1) * extent + true_extent);
}

static void write_post(const struct entry* posted, int blocking) {
  uintptr_t lo, hi;
  span_of(posted->buf, posted->count, posted->type, &lo, &hi);
  if (posted->kind == events_send) {
    struct log_span payload = pack(posted->buf, posted->count, posted->type);
    log_line(
        "{\"ev\":\"send\",\"id\":%ld,\"peer\":%d,\"tag\":%d,\"buf\":%ju,\"span\":[%ju,%ju],"
        "\"payload\":[%zu,%zu],\"blocking\":%s}",
        posted->id, posted->peer, posted->tag, (uintmax_t)(uintptr_t)posted->buf, (uintmax_t)lo,
        (uintmax_t)hi, payload.offset, payload.length, blocking ? "true" : "false");
  } else {
    log_line(
        "{\"ev\":\"recv\",\"id\":%ld,\"peer\":%d,\"tag\":%d,\"buf\":%ju,\"span\":[%ju,%ju],"
        "\"blocking\":%s}",
        posted->id, posted->peer == MPI_ANY_SOURCE ? -1 : posted->peer,
        posted->tag == MPI_ANY_TAG ? -1 : posted->tag, (uintmax_t)(uintptr_t)posted->buf,
        (uintmax_t)lo, (uintmax_t)hi, blocking ? "true" : "false");
  }
}

static int remember(enum events_kind kind, const void* key, const void* buf, size_t count,
                    MPI_Datatype type, int peer, int tag, int persistent) {
  int slot = persistent ? persistent_slot_of(key) : -1;
  if (slot < 0) slot = new_slot();
  entries[slot] = (struct entry){.used = 1,
                                 .key = key,
                                 .kind = kind,
                                 .buf = buf,
                                 .count = count,
                                 .type = type,
                                 .peer = peer,
                                 .tag = tag,
                                 .persistent = persistent};
  return slot;
}

int events_post(enum events_kind kind, const void* key, const void* buf, size_t count,
                MPI_Datatype type, int peer, int tag, int blocking) {
  int slot = remember(kind, key, buf, count, type, peer, tag, 0);
  entries[slot].active = 1;
  entries[slot].id = next_id++;
  write_post(&entries[slot], blocking);
  return slot;
}

void events_define_persistent(enum events_kind kind, const void* key, const void* buf, size_t count,
                              MPI_Datatype type, int peer, int tag) {
  remember(kind, key, buf, count, type, peer, tag, 1);
}

void events_start(const void* key) {
  int slot = persistent_slot_of(key);
  if (slot < 0) return;
  entries[slot].active = 1;
  entries[slot].id = next_id++;
  write_post(&entries[slot], 0);
}

int events_find(const void* key) { return active_slot_of(key); }

void events_complete_slot(int slot, const MPI_Status* status) {
  struct entry* done = &entries[slot];
  struct log_span payload = pack(done->buf, done->count, done->type);
  int source = done->peer;
  int tag = done->tag;
  if (done->kind == events_recv && status != NULL) {
    source = status->MPI_SOURCE;
    tag = status->MPI_TAG;
    // Only the bytes that arrived: the packed form is the elements in type-map order, so a
    // shorter message is a prefix of it.
    int received = 0;
    if (PMPI_Get_count(status, MPI_BYTE, &received) == MPI_SUCCESS && received >= 0 &&
        (size_t)received < payload.length)
      payload.length = (size_t)received;
  }
  log_line("{\"ev\":\"complete\",\"id\":%ld,\"source\":%d,\"tag\":%d,\"payload\":[%zu,%zu]}",
           done->id, source, tag, payload.offset, payload.length);
  done->active = 0;
  if (!done->persistent) done->used = 0;
}

void events_complete(const void* key, const MPI_Status* status) {
  int slot = events_find(key);
  if (slot >= 0) events_complete_slot(slot, status);
}

void events_forget(const void* key) {
  int slot = active_slot_of(key);
  if (slot >= 0) entries[slot].used = 0;
}
