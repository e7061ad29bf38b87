/* The runtime of a deployed phasecheck schedule (deploy/runtime.c), shared by the PMPI
 * interposer (deploy/interposer.c) and by every routine `phasecheck deploy --emit-c` writes:
 * both are this text followed by the tables of verified buffer programs (deploy/c_source.cpp).
 * C99, MPI only; every function is static, every name starts with pc_.
 *
 * A schedule is a buffer program (docs/formats.md, version 3): each rank has input, output and
 * scratch slots of one chunk each, and a program of steps (docs/programs.md): nonblocking
 * sends and receives, local copies, a wait closing each phase, and the phase separation the
 * schedule was deployed with (barriers or pair-wise synchronization messages).
 *
 * Bytes: a call of B bytes per message (alltoall) or per contribution (allgather) has chunks of
 * B / chunks bytes (the deploy step's tables say when that does not divide: the call falls
 * back). Input slot i is byte i * chunk of the send buffer, output slot i byte i * chunk of the
 * receive buffer; scratch (and output slots beyond p * chunks, mapped into scratch at deploy
 * time) live in memory cached per communicator.
 *
 * Phases: every step reads the state at the phase's start and writes at its end (the model's
 * semantics). A step marked `staged` goes through staging memory: a send packs several segments,
 * a receive or copy lands in staging and is unpacked after the wait. The deploy step stages
 * every receive and copy of a rank's phase that writes a slot the phase also reads.
 *
 * MPI_Alltoallv runs a count-independent pattern (a schedule of whole messages sent straight to
 * their destinations) with the call's own counts, displacements and datatypes: see "MPI_Alltoallv"
 * below for why its correctness does not depend on the counts.
 *
 * The including file defines PC_USE_ALLTOALL, PC_USE_ALLGATHER and PC_USE_ALLTOALLV (1 or 0):
 * which collectives it needs. */
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PC_INPUT = 0, PC_OUTPUT = 1, PC_SCRATCH = 2 };
/* What a step does (pc_step.kind, stored as one byte; deploy/c_source.cpp writes the names). */
typedef enum { PC_SEND, PC_RECV, PC_COPY, PC_WAIT, PC_SYNC_SEND, PC_SYNC_RECV, PC_BARRIER } pc_kind;
enum { PC_KINDS = PC_BARRIER + 1 };
enum { PC_ALLTOALL = 0, PC_ALLGATHER = 1, PC_ALLTOALLV = 2 };
/* Data messages are tagged with their phase modulo PC_TAGS; synchronization messages and an
 * alltoallv's typed copy to itself have a tag of their own. All of them travel on a communicator
 * duplicated for phasecheck. */
enum { PC_TAGS = 32000, PC_SYNC_TAG = 32001, PC_SELF_TAG = 32002 };
/* pc_alltoall, pc_allgather and pc_alltoallv return this instead of an MPI error code when the
 * call must go to the MPI library's own collective; *why says why. */
enum { PC_FALLBACK = -1 };

typedef struct {
  unsigned char buffer; /* PC_INPUT, PC_OUTPUT, PC_SCRATCH */
  uint32_t index;       /* first slot */
  uint32_t count;       /* slots */
} pc_segment;

typedef struct {
  unsigned char kind;   /* a pc_kind */
  unsigned char staged; /* through staging memory (see above) */
  int peer;             /* send, recv, sync: the other rank */
  uint32_t phase;       /* the schedule's phase */
  uint32_t from, nfrom; /* segments read: send, copy */
  uint32_t to, nto;     /* segments written: recv, copy */
  uint32_t chunks;      /* chunks moved */
  uint32_t staging;     /* offset in staging memory, in chunks */
} pc_step;

typedef struct {
  const char *name;      /* the schedule's algorithm, for messages */
  int collective;        /* PC_ALLTOALL, PC_ALLGATHER, PC_ALLTOALLV */
  int ranks;             /* p */
  uint32_t chunks;       /* c: chunks per message or contribution */
  int inplace;           /* allgather program without input: output r*c.. starts with it */
  uint32_t scratch;      /* scratch slots, spare output slots included */
  uint32_t max_message;  /* chunks in the largest message or copy */
  const pc_step *steps;
  const uint32_t *first;   /* rank r's steps: steps[first[r]] .. steps[first[r + 1] - 1] */
  const pc_segment *segments;
  const uint32_t *staging;  /* per rank: staging memory in chunks */
  const uint32_t *requests; /* per rank: most requests outstanding at once */
} pc_schedule;

/* ---- the communicator cache ------------------------------------------------------------- */

/* Per user communicator: a duplicate on which every message of the schedule travels (its tags
 * cannot meet the application's), and memory reused from call to call. Attached to the
 * communicator as an attribute; freed with it, or at MPI_Finalize. */
typedef struct pc_comm {
  MPI_Comm parent, dup;
  char *memory;
  size_t memory_size;
  MPI_Request *requests;
  size_t request_count;
  struct pc_comm *next;
} pc_comm;

static pthread_mutex_t pc_lock = PTHREAD_MUTEX_INITIALIZER;
static int pc_keyval = MPI_KEYVAL_INVALID;
static pc_comm *pc_comms = NULL;

static void pc_release(pc_comm *c) {
  pc_comm **at;
  pthread_mutex_lock(&pc_lock);
  for (at = &pc_comms; *at; at = &(*at)->next)
    if (*at == c) {
      *at = c->next;
      break;
    }
  pthread_mutex_unlock(&pc_lock);
  PMPI_Comm_free(&c->dup);
  free(c->memory);
  free(c->requests);
  free(c);
}

static int pc_delete(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)extra;
  pc_release((pc_comm *)value);
  return MPI_SUCCESS;
}

/* Runs first in MPI_Finalize (MPI_COMM_SELF's attributes are deleted before anything else):
 * every duplicate is freed while MPI still works. */
static int pc_finalize(MPI_Comm comm, int keyval, void *value, void *extra) {
  (void)comm;
  (void)keyval;
  (void)value;
  (void)extra;
  while (pc_comms) {
    MPI_Comm parent = pc_comms->parent;
    if (PMPI_Comm_delete_attr(parent, pc_keyval) != MPI_SUCCESS) pc_release(pc_comms);
  }
  PMPI_Comm_free_keyval(&pc_keyval);
  return MPI_SUCCESS;
}

static void pc_die(const char *what) {
  fprintf(stderr, "phasecheck: %s\n", what);
  PMPI_Abort(MPI_COMM_WORLD, 1);
}

/* The cache of `comm`, made on its first scheduled call (MPI_Comm_dup is collective: every rank
 * of `comm` makes the same decision for the same call, so all of them get here together). */
static pc_comm *pc_cache(MPI_Comm comm) {
  void *value = NULL;
  int found = 0;
  pc_comm *c;
  pthread_mutex_lock(&pc_lock);
  if (pc_keyval == MPI_KEYVAL_INVALID) {
    int self_keyval;
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pc_delete, &pc_keyval, NULL);
    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pc_finalize, &self_keyval, NULL);
    PMPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
  }
  pthread_mutex_unlock(&pc_lock);
  PMPI_Comm_get_attr(comm, pc_keyval, &value, &found);
  if (found) return (pc_comm *)value;
  c = (pc_comm *)calloc(1, sizeof *c);
  if (!c) pc_die("out of memory for a communicator's cache");
  c->parent = comm;
  PMPI_Comm_dup(comm, &c->dup);
  PMPI_Comm_set_attr(comm, pc_keyval, c);
  pthread_mutex_lock(&pc_lock);
  c->next = pc_comms;
  pc_comms = c;
  pthread_mutex_unlock(&pc_lock);
  return c;
}

/* At least `bytes` of memory and `requests` requests in the cache of a communicator. */
static void pc_reserve(pc_comm *c, size_t bytes, size_t requests) {
  if (bytes > c->memory_size) {
    free(c->memory);
    c->memory = (char *)malloc(bytes);
    if (!c->memory) pc_die("out of memory for scratch and staging buffers");
    c->memory_size = bytes;
  }
  if (requests > c->request_count) {
    free(c->requests);
    c->requests = (MPI_Request *)malloc(requests * sizeof(MPI_Request));
    if (!c->requests) pc_die("out of memory for requests");
    c->request_count = requests;
  }
}

/* ---- datatypes ---------------------------------------------------------------------------- */

/* A datatype is `dense` when `count` elements of it are exactly the bytes [0, count * size) of
 * the buffer, in the order of its type map: lb = true lb = 0, extent = true extent = size, and
 * every element of the flattened type map follows the one before it. Its signature is then kept
 * as runs of predefined types (at most PC_RUNS; beyond that it is not compared). A type that is
 * not dense is packed (MPI_Pack) into a contiguous copy and unpacked after the call. */
enum { PC_RUNS = 64, PC_WORK = 1 << 16 };
typedef struct {
  MPI_Datatype type;
  MPI_Count n;
} pc_run;
typedef struct {
  pc_run runs[PC_RUNS];
  int nruns;
  int complete; /* runs hold the whole signature */
  int dense;
  MPI_Aint position; /* the next byte a dense type map must continue at */
  long work;         /* steps spent: a type too complex to analyse is treated as not dense */
} pc_type;

static void pc_append(pc_type *t, MPI_Datatype basic, MPI_Count n) {
  if (!t->complete) return;
  if (t->nruns > 0 && t->runs[t->nruns - 1].type == basic) {
    t->runs[t->nruns - 1].n += n;
    return;
  }
  if (t->nruns == PC_RUNS) {
    t->complete = 0;
    return;
  }
  t->runs[t->nruns].type = basic;
  t->runs[t->nruns].n = n;
  ++t->nruns;
}

static void pc_walk(pc_type *t, MPI_Datatype type, MPI_Aint at, MPI_Count reps, int depth);

/* `reps` copies of a predefined type at `at`, spaced by its extent. */
static void pc_basic(pc_type *t, MPI_Datatype type, MPI_Aint at, MPI_Count reps) {
  MPI_Count size;
  MPI_Aint lb, extent;
  if (type == MPI_2INT) {
    pc_basic(t, MPI_INT, at, 2 * reps);
    return;
  }
  if (type == MPI_FLOAT_INT || type == MPI_DOUBLE_INT || type == MPI_LONG_INT ||
      type == MPI_SHORT_INT || type == MPI_LONG_DOUBLE_INT) {
    t->dense = 0; /* pairs with a hole (or mixed element types): packed */
    return;
  }
  PMPI_Type_size_x(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  if (at != t->position || lb != 0 || extent != (MPI_Aint)size) {
    t->dense = 0;
    return;
  }
  t->position += (MPI_Aint)(size * reps);
  pc_append(t, type, reps);
}

static void pc_walk(pc_type *t, MPI_Datatype type, MPI_Aint at, MPI_Count reps, int depth) {
  int ni, na, nd, combiner, i;
  int *ints = NULL;
  MPI_Aint *addresses = NULL, lb, extent, old_lb, old_extent;
  MPI_Datatype *types = NULL;
  MPI_Count r;
  if (!t->dense || reps == 0) return;
  if (++t->work > PC_WORK || depth > 16) {
    t->dense = 0;
    return;
  }
  PMPI_Type_get_envelope(type, &ni, &na, &nd, &combiner);
  if (combiner == MPI_COMBINER_NAMED) {
    pc_basic(t, type, at, reps);
    return;
  }
  ints = (int *)malloc(sizeof(int) * (size_t)(ni + 1));
  addresses = (MPI_Aint *)malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
  types = (MPI_Datatype *)malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
  if (!ints || !addresses || !types) {
    t->dense = 0;
    goto done;
  }
  PMPI_Type_get_contents(type, ni, na, nd, ints, addresses, types);
  PMPI_Type_get_extent(type, &lb, &extent);
  if (nd >= 1) PMPI_Type_get_extent(types[0], &old_lb, &old_extent);
  switch (combiner) {
    case MPI_COMBINER_DUP:
      pc_walk(t, types[0], at, reps, depth + 1);
      break;
    case MPI_COMBINER_CONTIGUOUS:
      pc_walk(t, types[0], at, reps * ints[0], depth + 1);
      break;
    case MPI_COMBINER_VECTOR: /* count, blocklength, stride (in extents) */
      if (ints[0] <= 1 || ints[2] == ints[1])
        pc_walk(t, types[0], at, reps * ints[0] * ints[1], depth + 1);
      else
        t->dense = 0;
      break;
    case MPI_COMBINER_HVECTOR: /* count, blocklength; stride in bytes */
      if (ints[0] <= 1 || addresses[0] == (MPI_Aint)ints[1] * old_extent)
        pc_walk(t, types[0], at, reps * ints[0] * ints[1], depth + 1);
      else
        t->dense = 0;
      break;
    case MPI_COMBINER_INDEXED: /* count, blocklengths[count], displacements[count] (extents) */
      for (r = 0; r < reps && t->dense; ++r)
        for (i = 0; i < ints[0] && t->dense; ++i)
          pc_walk(t, types[0], at + (MPI_Aint)r * extent + (MPI_Aint)ints[1 + ints[0] + i] * old_extent,
                  ints[1 + i], depth + 1);
      break;
    case MPI_COMBINER_HINDEXED: /* count, blocklengths[count]; displacements in bytes */
      for (r = 0; r < reps && t->dense; ++r)
        for (i = 0; i < ints[0] && t->dense; ++i)
          pc_walk(t, types[0], at + (MPI_Aint)r * extent + addresses[i], ints[1 + i], depth + 1);
      break;
    case MPI_COMBINER_INDEXED_BLOCK: /* count, blocklength, displacements[count] (extents) */
      for (r = 0; r < reps && t->dense; ++r)
        for (i = 0; i < ints[0] && t->dense; ++i)
          pc_walk(t, types[0], at + (MPI_Aint)r * extent + (MPI_Aint)ints[2 + i] * old_extent,
                  ints[1], depth + 1);
      break;
    case MPI_COMBINER_HINDEXED_BLOCK: /* count, blocklength; displacements in bytes */
      for (r = 0; r < reps && t->dense; ++r)
        for (i = 0; i < ints[0] && t->dense; ++i)
          pc_walk(t, types[0], at + (MPI_Aint)r * extent + addresses[i], ints[1], depth + 1);
      break;
    case MPI_COMBINER_STRUCT: /* count, blocklengths[count]; displacements; types */
      for (r = 0; r < reps && t->dense; ++r)
        for (i = 0; i < ints[0] && t->dense; ++i)
          pc_walk(t, types[i], at + (MPI_Aint)r * extent + addresses[i], ints[1 + i], depth + 1);
      break;
    case MPI_COMBINER_RESIZED: /* lb, extent; the old type */
      for (r = 0; r < reps && t->dense; ++r) pc_walk(t, types[0], at + (MPI_Aint)r * extent, 1, depth + 1);
      break;
    default: /* subarray, darray, Fortran types: packed */
      t->dense = 0;
      break;
  }
  for (i = 0; i < nd; ++i) {
    int tni, tna, tnd, tcombiner;
    PMPI_Type_get_envelope(types[i], &tni, &tna, &tnd, &tcombiner);
    if (tcombiner != MPI_COMBINER_NAMED) PMPI_Type_free(&types[i]);
  }
done:
  free(ints);
  free(addresses);
  free(types);
}

/* What `type` is: dense or not, and its signature when it is. */
static void pc_analyse(MPI_Datatype type, pc_type *t) {
  MPI_Aint lb, extent, true_lb, true_extent;
  MPI_Count size;
  t->nruns = 0;
  t->complete = 1;
  t->dense = 1;
  t->position = 0;
  t->work = 0;
  PMPI_Type_size_x(type, &size);
  PMPI_Type_get_extent(type, &lb, &extent);
  PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
  if (lb != 0 || true_lb != 0 || extent != (MPI_Aint)size || true_extent != (MPI_Aint)size) {
    t->dense = 0;
    return;
  }
  pc_walk(t, type, 0, 1, 0);
  if (t->dense && t->position != (MPI_Aint)size) t->dense = 0;
}

/* Whether `a_count` elements of a and `b_count` of b have one signature; -1 when it is not known
 * (a signature longer than PC_RUNS runs). */
static int pc_same_signature(const pc_type *a, MPI_Count a_count, const pc_type *b,
                             MPI_Count b_count) {
  int ia = 0, ib = 0;
  MPI_Count ra = 0, rb = 0, left_a, left_b, take;
  if (!a->complete || !b->complete) return -1;
  if (a_count == 0 || a->nruns == 0) return b_count == 0 || b->nruns == 0;
  if (b_count == 0 || b->nruns == 0) return 0;
  if (a->nruns == 1 && b->nruns == 1)
    return a->runs[0].type == b->runs[0].type && a->runs[0].n * a_count == b->runs[0].n * b_count;
  /* Walk both run sequences, repeated count times, side by side. */
  left_a = a->runs[0].n;
  left_b = b->runs[0].n;
  for (;;) {
    if (a->runs[ia].type != b->runs[ib].type) return 0;
    take = left_a < left_b ? left_a : left_b;
    left_a -= take;
    left_b -= take;
    if (left_a == 0) {
      if (++ia == a->nruns) {
        ia = 0;
        ++ra;
      }
      if (ra < a_count) left_a = a->runs[ia].n;
    }
    if (left_b == 0) {
      if (++ib == b->nruns) {
        ib = 0;
        ++rb;
      }
      if (rb < b_count) left_b = b->runs[ib].n;
    }
    if (ra == a_count || rb == b_count) return ra == a_count && rb == b_count;
  }
}

/* A step of the phase separation (synchronization message or barrier), which moves no data: a
 * synchronization send is posted as request *posted. */
static int pc_synchronize(const pc_step *step, MPI_Comm comm, MPI_Request *requests,
                          int *posted) {
  if (step->kind == PC_SYNC_SEND)
    return PMPI_Isend(NULL, 0, MPI_BYTE, step->peer, PC_SYNC_TAG, comm, &requests[(*posted)++]);
  if (step->kind == PC_SYNC_RECV)
    return PMPI_Recv(NULL, 0, MPI_BYTE, step->peer, PC_SYNC_TAG, comm, MPI_STATUS_IGNORE);
  if (step->kind != PC_BARRIER) pc_die("internal error: a data step taken for synchronization");
  return PMPI_Barrier(comm);
}

#if PC_USE_ALLTOALL || PC_USE_ALLGATHER /* the chunked runtime; MPI_Alltoallv has its own */
/* ---- executing a program ------------------------------------------------------------------ */

typedef struct {
  const char *input;
  char *output, *scratch, *staging;
  size_t chunk; /* bytes per slot */
} pc_buffers;

static char *pc_slot(const pc_buffers *b, const pc_segment *s) {
  const size_t offset = (size_t)s->index * b->chunk;
  if (s->buffer == PC_INPUT) return (char *)b->input + offset;
  return (s->buffer == PC_OUTPUT ? b->output : b->scratch) + offset;
}

static void pc_pack(const pc_buffers *b, const pc_segment *s, uint32_t n, char *to) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    const size_t bytes = (size_t)s[i].count * b->chunk;
    memcpy(to, pc_slot(b, &s[i]), bytes);
    to += bytes;
  }
}

static void pc_unpack(const pc_buffers *b, const char *from, const pc_segment *s, uint32_t n) {
  uint32_t i;
  for (i = 0; i < n; ++i) {
    const size_t bytes = (size_t)s[i].count * b->chunk;
    memcpy(pc_slot(b, &s[i]), from, bytes);
    from += bytes;
  }
}

/* Rank `rank`'s program of `s` on `b`, its messages on `comm`. */
static int pc_execute(const pc_schedule *s, int rank, MPI_Comm comm, const pc_buffers *b,
                      MPI_Request *requests) {
  const pc_step *step = s->steps + s->first[rank];
  const pc_step *const end = s->steps + s->first[rank + 1];
  const pc_step *phase = step; /* the first step after the last wait */
  int posted = 0, err = MPI_SUCCESS;
  for (; step < end && err == MPI_SUCCESS; ++step) {
    const pc_segment *from = s->segments + step->from, *to = s->segments + step->to;
    char *const staged = b->staging + (size_t)step->staging * b->chunk;
    const int bytes = (int)((size_t)step->chunks * b->chunk);
    const int tag = (int)(step->phase % PC_TAGS);
    /* The deploy step writes only pc_kind values: any other is a bug in it, never a barrier. */
    if (step->kind >= PC_KINDS) {
      pc_die("internal error: a step of unknown kind in the deployed tables");
      return MPI_ERR_INTERN;
    }
    switch ((pc_kind)step->kind) {
      case PC_SEND:
        if (step->staged) pc_pack(b, from, step->nfrom, staged);
        err = PMPI_Isend(step->staged ? staged : pc_slot(b, from), bytes, MPI_BYTE, step->peer, tag,
                         comm, &requests[posted++]);
        break;
      case PC_RECV:
        err = PMPI_Irecv(step->staged ? staged : pc_slot(b, to), bytes, MPI_BYTE, step->peer, tag,
                         comm, &requests[posted++]);
        break;
      case PC_COPY:
        if (step->staged)
          pc_pack(b, from, step->nfrom, staged);
        else
          memcpy(pc_slot(b, to), pc_slot(b, from), (size_t)bytes);
        break;
      case PC_WAIT:
        err = PMPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
        posted = 0;
        for (; phase < step; ++phase)
          if ((phase->kind == PC_RECV || phase->kind == PC_COPY) && phase->staged)
            pc_unpack(b, b->staging + (size_t)phase->staging * b->chunk,
                      s->segments + phase->to, phase->nto);
        phase = step + 1;
        break;
      case PC_SYNC_SEND:
      case PC_SYNC_RECV:
      case PC_BARRIER:
        err = pc_synchronize(step, comm, requests, &posted);
        break;
    }
  }
  if (err == MPI_SUCCESS && posted > 0) err = PMPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
  return err;
}

/* ---- the collectives ---------------------------------------------------------------------- */

/* What both collectives settle before they run, from the call's arguments (after MPI_IN_PLACE
 * has made the send type and count the receive ones): the per-message size B, the types'
 * layouts, the rank, the communicator's cache and the sizes of scratch and staging. */
typedef struct {
  MPI_Count bytes; /* B: per message (alltoall) or contribution (allgather) */
  pc_type st, rt;
  int rank;
  pc_comm *c;
  size_t chunk, scratch_bytes, staging_bytes;
} pc_call;

/* MPI_SUCCESS with *call filled in (call->bytes == 0: nothing to move, nothing else set), or
 * PC_FALLBACK with *why. Every reason to fall back depends only on what is equal on every rank
 * of a correct program (the communicator, B, each rank's own send against its own receive
 * signature), so all ranks take the same path. */
static int pc_prepare(const pc_schedule *s, const void *sendbuf, int sendcount,
                      MPI_Datatype sendtype, const void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm, pc_call *call, const char **why) {
  MPI_Count send_size = 0, recv_size = 0, send_bytes, total, largest;
  int inter = 0;
  /* An erroneous call (MPI 4.1, 6.9.5: counts are non-negative, types valid, MPI_IN_PLACE only
   * as the send buffer) goes to the library untouched: it checks these arguments locally,
   * before any communication, and answers with its own error class (MPI_ERR_COUNT, ...). */
  if (sendcount < 0 || recvcount < 0) {
    *why = "a negative count (the library reports the error)";
    return PC_FALLBACK;
  }
  if (sendtype == MPI_DATATYPE_NULL || recvtype == MPI_DATATYPE_NULL ||
      recvbuf == MPI_IN_PLACE) {
    *why = "MPI_DATATYPE_NULL or MPI_IN_PLACE as the receive buffer (the library reports the "
           "error)";
    return PC_FALLBACK;
  }
  if ((sendbuf == NULL && sendcount > 0) || (recvbuf == NULL && recvcount > 0)) {
    *why = "a null buffer with a positive count (the library reports the error)";
    return PC_FALLBACK;
  }
  if (PMPI_Type_size_x(sendtype, &send_size) != MPI_SUCCESS ||
      PMPI_Type_size_x(recvtype, &recv_size) != MPI_SUCCESS || send_size < 0 || recv_size < 0) {
    *why = "a datatype whose size is not known (the library reports the error)";
    return PC_FALLBACK;
  }
  /* Every product below is overflow-checked: a size that does not fit is a call the schedule
   * does not serve, never a wrapped number that reaches memcpy. */
  if (__builtin_mul_overflow(recv_size, (MPI_Count)recvcount, &call->bytes) ||
      __builtin_mul_overflow(send_size, (MPI_Count)sendcount, &send_bytes)) {
    *why = "a message size that overflows";
    return PC_FALLBACK;
  }
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    *why = "an intercommunicator";
    return PC_FALLBACK;
  }
  if (send_bytes != call->bytes) {
    *why = "the send and receive sizes differ";
    return PC_FALLBACK;
  }
  if (call->bytes % s->chunks != 0) {
    *why = "the message size is not a multiple of the schedule's chunks";
    return PC_FALLBACK;
  }
  if (__builtin_mul_overflow(call->bytes, (MPI_Count)s->ranks, &total) ||
      __builtin_mul_overflow(call->bytes / s->chunks, (MPI_Count)s->max_message, &largest) ||
      total > INT_MAX || largest > INT_MAX) {
    *why = "more than 2^31 - 1 bytes in a buffer";
    return PC_FALLBACK;
  }
  if (call->bytes == 0) return MPI_SUCCESS;
  pc_analyse(sendtype, &call->st);
  pc_analyse(recvtype, &call->rt);
  if (call->st.dense && call->rt.dense &&
      pc_same_signature(&call->st, sendcount, &call->rt, recvcount) == 0) {
    *why = "the send and receive type signatures differ";
    return PC_FALLBACK;
  }
  PMPI_Comm_rank(comm, &call->rank);
  call->c = pc_cache(comm);
  call->chunk = (size_t)call->bytes / s->chunks;
  call->scratch_bytes = (size_t)s->scratch * call->chunk;
  call->staging_bytes = (size_t)s->staging[call->rank] * call->chunk;
  return MPI_SUCCESS;
}

#endif

#if PC_USE_ALLTOALL
/* MPI_Alltoall by schedule `s` (s->ranks == the size of comm), or PC_FALLBACK. */
static int pc_alltoall(const pc_schedule *s, const void *sendbuf, int sendcount,
                       MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                       MPI_Comm comm, const char **why) {
  const int p = s->ranks, in_place = sendbuf == MPI_IN_PLACE;
  pc_call call;
  pc_buffers b;
  size_t input_copy, output_copy, total;
  int err, position;
  char *memory;
  if (in_place) {
    sendcount = recvcount;
    sendtype = recvtype;
  }
  err = pc_prepare(s, in_place ? recvbuf : sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, &call, why);
  if (err != MPI_SUCCESS || call.bytes == 0) return err;
  input_copy = (in_place || !call.st.dense) ? (size_t)call.bytes * p : 0;
  output_copy = call.rt.dense ? 0 : (size_t)call.bytes * p;
  total = call.scratch_bytes + call.staging_bytes + input_copy + output_copy;
  pc_reserve(call.c, total ? total : 1, s->requests[call.rank] ? s->requests[call.rank] : 1);
  memory = call.c->memory;
  b.chunk = call.chunk;
  b.scratch = memory;
  b.staging = memory + call.scratch_bytes;
  b.input = (const char *)sendbuf;
  b.output = call.rt.dense ? (char *)recvbuf
                           : memory + call.scratch_bytes + call.staging_bytes + input_copy;
  if (input_copy) {
    char *copy = memory + call.scratch_bytes + call.staging_bytes;
    position = 0;
    if (in_place && call.rt.dense)
      memcpy(copy, recvbuf, input_copy);
    else
      PMPI_Pack(in_place ? recvbuf : sendbuf, sendcount * p, sendtype, copy, (int)input_copy,
                &position, call.c->dup);
    b.input = copy;
  }
  err = pc_execute(s, call.rank, call.c->dup, &b, call.c->requests);
  if (err == MPI_SUCCESS && output_copy) {
    position = 0;
    err = PMPI_Unpack(b.output, (int)output_copy, &position, recvbuf, recvcount * p, recvtype,
                      call.c->dup);
  }
  return err;
}

#endif

#if PC_USE_ALLGATHER
/* MPI_Allgather by schedule `s`, or PC_FALLBACK. */
static int pc_allgather(const pc_schedule *s, const void *sendbuf, int sendcount,
                        MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                        MPI_Comm comm, const char **why) {
  const int p = s->ranks, in_place = sendbuf == MPI_IN_PLACE;
  pc_call call;
  pc_buffers b;
  size_t bytes, output_copy;
  int err, position;
  char *own;
  if (in_place) {
    sendcount = recvcount;
    sendtype = recvtype;
  }
  err = pc_prepare(s, in_place ? recvbuf : sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, &call, why);
  if (err != MPI_SUCCESS || call.bytes == 0) return err;
  bytes = (size_t)call.bytes;
  output_copy = call.rt.dense ? 0 : bytes * p;
  /* The rank's own contribution is always copied (B bytes): in place it sits in the output,
   * which the program may write before it reads it. */
  pc_reserve(call.c, call.scratch_bytes + call.staging_bytes + bytes + output_copy,
             s->requests[call.rank] ? s->requests[call.rank] : 1);
  b.chunk = call.chunk;
  b.scratch = call.c->memory;
  b.staging = call.c->memory + call.scratch_bytes;
  own = call.c->memory + call.scratch_bytes + call.staging_bytes;
  b.output = call.rt.dense ? (char *)recvbuf : own + bytes;
  if (!call.rt.dense && in_place) { /* the whole receive buffer, packed: the own block is in it */
    position = 0;
    PMPI_Pack(recvbuf, recvcount * p, recvtype, b.output, (int)output_copy, &position,
              call.c->dup);
  }
  if (in_place) {
    memcpy(own, b.output + bytes * call.rank, bytes);
  } else if (call.st.dense) {
    memcpy(own, sendbuf, bytes);
  } else {
    position = 0;
    PMPI_Pack(sendbuf, sendcount, sendtype, own, (int)bytes, &position, call.c->dup);
  }
  b.input = own;
  if (s->inplace) memcpy(b.output + bytes * call.rank, own, bytes);
  err = pc_execute(s, call.rank, call.c->dup, &b, call.c->requests);
  if (err == MPI_SUCCESS && output_copy) {
    position = 0;
    err = PMPI_Unpack(b.output, (int)output_copy, &position, recvbuf, recvcount * p, recvtype,
                      call.c->dup);
  }
  return err;
}
#endif

#if PC_USE_ALLTOALLV
/* ---- MPI_Alltoallv -------------------------------------------------------------------------
 *
 * A deployed alltoallv schedule is a count-independent pattern (deploy/plan.hpp: linear-v,
 * pairwise-v, scattered-v, verified on a matrix whose every off-diagonal count is non-zero, so
 * that it lists every message): each rank's program sends the message to d (input slot d) in a
 * fixed phase and receives the message from s (output slot s) in a fixed phase, straight from
 * the user's send area into the user's receive area, and copies its own message once. Why the
 * call's counts cannot make it wrong:
 *
 *  - Each message goes directly from its origin's input area to its destination's output area,
 *    exactly once, in a phase and an order fixed by (rank, step) alone: no rank forwards or
 *    aggregates anything, so no count decides what another rank must hold or relay.
 *  - In a correct MPI program sendcounts[d] at s and recvcounts[s] at d describe the same
 *    message (the same type signature, MPI 4.1, 6.9.5), so a zero count skips the send at s and
 *    the matching receive at d together: the pair leaves the phase as a whole.
 *  - The verified pattern is free of deadlock (its per-rank programs were replayed together);
 *    removing a matched send/receive pair from a phase removes one edge of the wait-for relation
 *    and adds none, so every subset of its messages is free of deadlock too. Synchronization
 *    (barriers, pair-wise synchronization messages) does not depend on the counts and always runs.
 *  - Where data lands is the displacements' business alone: message s lands at
 *    recvbuf + rdispls[s] * extent(recvtype), whatever the other displacements are, so gaps
 *    between areas and displacements in any order are fine.
 *  - Datatypes are the call's: every message is sent with (sendcounts[d], sendtype) and received
 *    with (recvcounts[s], recvtype), so MPI matches signatures as for the library's own call;
 *    the copy to itself is a memcpy when both types are dense with one signature (pc_analyse,
 *    pc_same_signature), else a send to itself on the private communicator.
 *
 * Every reason to fall back is shared by all ranks (the communicator, the schedule's existence)
 * or belongs to an erroneous call (a negative count, MPI_DATATYPE_NULL, MPI_IN_PLACE as the
 * receive buffer), which the library reports. None rests on local counts: ranks could disagree
 * and deadlock. A rank with no message at all still runs its program (its synchronization).
 * An erroneous program whose ranks disagree on the counts (s sends 5 elements, d expects 0 or
 * 7) is the application's bug: it may hang or truncate here as it may with the library.
 *
 * MPI_IN_PLACE: the input is the receive buffer (recvcounts, rdispls, recvtype). The bytes the
 * receive areas span (from the lowest true lower bound to the highest true upper bound of the
 * non-empty ones: the sum of the messages when the displacements are prefix sums of a dense
 * type) are copied into the communicator's cache first and every message is sent from that
 * copy, so that no receive overwrites data still to be sent; the own message is already in
 * place. */

typedef struct {
  const char *send;   /* the send buffer, or in place the copy of the receive areas */
  MPI_Aint shift;     /* added to every send address: in place, minus the copy's first byte */
  const int *sendcounts, *sdispls, *recvcounts, *rdispls;
  MPI_Datatype sendtype, recvtype;
  MPI_Aint send_extent, recv_extent;
  char *recv;
  int in_place;
  int dense_copy;   /* the own message by memcpy of copy_bytes */
  size_t copy_bytes;
} pc_vcall;

/* The one slot a step of a deployed alltoallv moves: the deploy step makes only steps of one
 * segment of one slot, input to read and output to write; anything else is a bug in it. */
static int pc_vslot(const pc_schedule *s, uint32_t first, uint32_t n, unsigned char buffer) {
  const pc_segment *g = s->segments + first;
  if (n != 1 || g->count != 1 || g->buffer != buffer || g->index >= (uint32_t)s->ranks)
    pc_die("internal error: an alltoallv step that is not one whole message in the tables");
  return (int)g->index;
}

static const char *pc_vsend_area(const pc_vcall *v, int d) {
  return v->send + (v->shift + (MPI_Aint)v->sdispls[d] * v->send_extent);
}

static char *pc_vrecv_area(const pc_vcall *v, int s) {
  return v->recv + (MPI_Aint)v->rdispls[s] * v->recv_extent;
}

/* Rank `rank`'s program of `s` with the call `v`, its messages on `comm`. */
static int pc_execute_v(const pc_schedule *s, int rank, MPI_Comm comm, const pc_vcall *v,
                        MPI_Request *requests) {
  const pc_step *step = s->steps + s->first[rank];
  const pc_step *const end = s->steps + s->first[rank + 1];
  int posted = 0, err = MPI_SUCCESS, d, o;
  for (; step < end && err == MPI_SUCCESS; ++step) {
    const int tag = (int)(step->phase % PC_TAGS);
    if (step->kind >= PC_KINDS) {
      pc_die("internal error: a step of unknown kind in the deployed tables");
      return MPI_ERR_INTERN;
    }
    if (step->staged) pc_die("internal error: a staged alltoallv step in the tables");
    switch ((pc_kind)step->kind) {
      case PC_SEND: /* skipped with its matching receive when the message is empty */
        d = pc_vslot(s, step->from, step->nfrom, PC_INPUT);
        if (v->sendcounts[d] > 0)
          err = PMPI_Isend(pc_vsend_area(v, d), v->sendcounts[d], v->sendtype, step->peer, tag,
                           comm, &requests[posted++]);
        break;
      case PC_RECV:
        o = pc_vslot(s, step->to, step->nto, PC_OUTPUT);
        if (v->recvcounts[o] > 0)
          err = PMPI_Irecv(pc_vrecv_area(v, o), v->recvcounts[o], v->recvtype, step->peer, tag,
                           comm, &requests[posted++]);
        break;
      case PC_COPY: /* the own message */
        d = pc_vslot(s, step->from, step->nfrom, PC_INPUT);
        o = pc_vslot(s, step->to, step->nto, PC_OUTPUT);
        if (v->in_place || (v->sendcounts[d] == 0 && v->recvcounts[o] == 0)) break;
        if (v->dense_copy)
          memcpy(pc_vrecv_area(v, o), pc_vsend_area(v, d), v->copy_bytes);
        else
          err = PMPI_Sendrecv(pc_vsend_area(v, d), v->sendcounts[d], v->sendtype, rank,
                              PC_SELF_TAG, pc_vrecv_area(v, o), v->recvcounts[o], v->recvtype,
                              rank, PC_SELF_TAG, comm, MPI_STATUS_IGNORE);
        break;
      case PC_WAIT:
        err = PMPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
        posted = 0;
        break;
      case PC_SYNC_SEND:
      case PC_SYNC_RECV:
      case PC_BARRIER:
        err = pc_synchronize(step, comm, requests, &posted);
        break;
    }
  }
  if (err == MPI_SUCCESS && posted > 0) err = PMPI_Waitall(posted, requests, MPI_STATUSES_IGNORE);
  return err;
}

/* The bytes [*lo, *hi) relative to `recvbuf` that the non-empty receive areas span (0, 0 when
 * there are none). A span beyond the address space is no buffer a correct program has. */
static void pc_receive_span(const pc_schedule *s, const int *recvcounts, const int *rdispls,
                            MPI_Datatype recvtype, MPI_Aint extent, MPI_Aint *lo, MPI_Aint *hi) {
  MPI_Aint true_lb, true_extent, first, last, a, b;
  int i, any = 0, overflow = 0;
  PMPI_Type_get_true_extent(recvtype, &true_lb, &true_extent);
  *lo = *hi = 0;
  for (i = 0; i < s->ranks; ++i) {
    if (recvcounts[i] == 0) continue;
    overflow |= __builtin_mul_overflow((MPI_Aint)rdispls[i], extent, &first);
    overflow |= __builtin_add_overflow(first, true_lb, &first);
    overflow |= __builtin_mul_overflow((MPI_Aint)(recvcounts[i] - 1), extent, &last);
    overflow |= __builtin_add_overflow(first, last, &last);
    a = first < last ? first : last;
    overflow |= __builtin_add_overflow(first < last ? last : first, true_extent, &b);
    if (!any || a < *lo) *lo = a;
    if (!any || b > *hi) *hi = b;
    any = 1;
  }
  if (overflow) pc_die("an MPI_IN_PLACE alltoallv whose receive areas overflow the address space");
}

/* MPI_Alltoallv by schedule `s` (s->ranks == the size of comm), or PC_FALLBACK. */
static int pc_alltoallv(const pc_schedule *s, const void *sendbuf, const int *sendcounts,
                        const int *sdispls, MPI_Datatype sendtype, void *recvbuf,
                        const int *recvcounts, const int *rdispls, MPI_Datatype recvtype,
                        MPI_Comm comm, const char **why) {
  const int p = s->ranks;
  pc_vcall v;
  pc_comm *c;
  pc_type st, rt;
  MPI_Aint lb, lo = 0, hi = 0;
  MPI_Count size;
  int rank, i, inter = 0;
  memset(&v, 0, sizeof v);
  v.in_place = sendbuf == MPI_IN_PLACE;
  if (v.in_place) { /* MPI 4.1, 6.9.5: the send arguments are ignored */
    sendcounts = recvcounts;
    sdispls = rdispls;
    sendtype = recvtype;
  }
  /* Erroneous calls go to the library untouched (as pc_prepare does): it checks these
   * arguments locally and answers with its own error class. */
  if (!sendcounts || !sdispls || !recvcounts || !rdispls || recvbuf == MPI_IN_PLACE ||
      sendtype == MPI_DATATYPE_NULL || recvtype == MPI_DATATYPE_NULL) {
    *why = "null counts or displacements, MPI_DATATYPE_NULL or MPI_IN_PLACE as the receive "
           "buffer (the library reports the error)";
    return PC_FALLBACK;
  }
  for (i = 0; i < p; ++i)
    if (sendcounts[i] < 0 || recvcounts[i] < 0) {
      *why = "a negative count (the library reports the error)";
      return PC_FALLBACK;
    }
  if (PMPI_Type_get_extent(sendtype, &lb, &v.send_extent) != MPI_SUCCESS ||
      PMPI_Type_get_extent(recvtype, &lb, &v.recv_extent) != MPI_SUCCESS) {
    *why = "a datatype whose extent is not known (the library reports the error)";
    return PC_FALLBACK;
  }
  PMPI_Comm_test_inter(comm, &inter);
  if (inter) {
    *why = "an intercommunicator";
    return PC_FALLBACK;
  }
  PMPI_Comm_rank(comm, &rank);
  c = pc_cache(comm);
  v.sendcounts = sendcounts;
  v.sdispls = sdispls;
  v.sendtype = sendtype;
  v.recvcounts = recvcounts;
  v.rdispls = rdispls;
  v.recvtype = recvtype;
  v.recv = (char *)recvbuf;
  v.send = (const char *)sendbuf;
  if (v.in_place) pc_receive_span(s, recvcounts, rdispls, recvtype, v.recv_extent, &lo, &hi);
  pc_reserve(c, hi > lo ? (size_t)(hi - lo) : 1, s->requests[rank] ? s->requests[rank] : 1);
  if (v.in_place) {
    if (hi > lo) memcpy(c->memory, (char *)recvbuf + lo, (size_t)(hi - lo));
    v.send = c->memory;
    v.shift = -lo;
  } else if (sendcounts[rank] > 0) {
    pc_analyse(sendtype, &st);
    pc_analyse(recvtype, &rt);
    PMPI_Type_size_x(sendtype, &size);
    v.dense_copy = st.dense && rt.dense &&
                   pc_same_signature(&st, sendcounts[rank], &rt, recvcounts[rank]) == 1;
    v.copy_bytes = (size_t)size * (size_t)sendcounts[rank];
  }
  return pc_execute_v(s, rank, c->dup, &v, c->requests);
}
#endif
