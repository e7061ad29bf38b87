/* Times the interposed collectives against the library's own in the same run
 * (scripts/deploy-benchmark, docs/run.md "Deploy"). Under LD_PRELOAD of a library made by
 * `phasecheck deploy`, MPI_Alltoall / MPI_Allgather are the deployed schedule and PMPI_Alltoall /
 * PMPI_Allgather Open MPI's own. For each message size (bytes per message or contribution, the
 * arguments after the collective's name) both are called REPEATS times, alternately, each call
 * after a barrier; a call's time is the slowest rank's; the median is printed. Rank 0 prints one
 * line per size: "COLLECTIVE RANKS BYTES SCHEDULE_SECONDS LIBRARY_SECONDS". Both results are
 * compared byte for byte; a difference exits 1.
 * `alltoallv BYTES...` times MPI_Alltoallv against PMPI_Alltoallv the same way on a skewed matrix
 * of about BYTES per message: counts[s][d] = BYTES * ((s + 2d) % 4) / 2 (a quarter of the pairs
 * empty, the others half, one or one and a half times BYTES), prefix-sum displacements. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPEATS = 21 };

static int by_value(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef int (*collective)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);
typedef int (*collective_v)(const void *, const int *, const int *, MPI_Datatype, void *,
                            const int *, const int *, MPI_Datatype, MPI_Comm);

typedef struct {
  int counts[2][1024], displs[2][1024]; /* send, receive */
  size_t bytes[2];
} Matrix;

/* Rank `rank`'s row and column of the skewed matrix of about `bytes` per message. */
static void skewed(Matrix *m, int p, int rank, int bytes) {
  int d, side;
  for (d = 0; d < p; ++d) {
    m->counts[0][d] = (int)((long)bytes * ((rank + 2 * d) % 4) / 2);
    m->counts[1][d] = (int)((long)bytes * ((d + 2 * rank) % 4) / 2);
  }
  for (side = 0; side < 2; ++side) {
    m->bytes[side] = 0;
    for (d = 0; d < p; ++d) {
      m->displs[side][d] = (int)m->bytes[side];
      m->bytes[side] += (size_t)m->counts[side][d];
    }
  }
}

static double timed_v(collective_v f, const void *send, const Matrix *m, void *recv) {
  double start, mine, slowest;
  PMPI_Barrier(MPI_COMM_WORLD);
  start = MPI_Wtime();
  f(send, m->counts[0], m->displs[0], MPI_BYTE, recv, m->counts[1], m->displs[1], MPI_BYTE,
    MPI_COMM_WORLD);
  mine = MPI_Wtime() - start;
  PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

/* The alltoallv mode: one line per size, as for the others. */
static int time_alltoallv(int argc, char **argv, int rank, int p) {
  int i, r, status = 0;
  static Matrix m;
  if (p > 1024) return 2;
  for (i = 2; i < argc; ++i) {
    const int bytes = atoi(argv[i]);
    unsigned char *send, *a, *b;
    double ours[REPEATS], theirs[REPEATS];
    size_t k;
    skewed(&m, p, rank, bytes);
    send = malloc(m.bytes[0] + 1);
    a = malloc(m.bytes[1] + 1);
    b = malloc(m.bytes[1] + 1);
    for (k = 0; k < m.bytes[0]; ++k) send[k] = (unsigned char)(rank * 29 + k * 13);
    timed_v(MPI_Alltoallv, send, &m, a); /* warm up */
    timed_v(PMPI_Alltoallv, send, &m, b);
    for (r = 0; r < REPEATS; ++r) {
      ours[r] = timed_v(MPI_Alltoallv, send, &m, a);
      theirs[r] = timed_v(PMPI_Alltoallv, send, &m, b);
    }
    if (memcmp(a, b, m.bytes[1]) != 0) {
      fprintf(stderr, "rank %d: %d bytes: results differ from the library's\n", rank, bytes);
      status = 1;
    }
    qsort(ours, REPEATS, sizeof(double), by_value);
    qsort(theirs, REPEATS, sizeof(double), by_value);
    if (rank == 0)
      printf("alltoallv %d %d %.9f %.9f\n", p, bytes, ours[REPEATS / 2], theirs[REPEATS / 2]);
    free(send);
    free(a);
    free(b);
  }
  return status;
}

static double timed(collective f, const void *send, int bytes, void *recv) {
  double start, mine, slowest;
  PMPI_Barrier(MPI_COMM_WORLD);
  start = MPI_Wtime();
  f(send, bytes, MPI_BYTE, recv, bytes, MPI_BYTE, MPI_COMM_WORLD);
  mine = MPI_Wtime() - start;
  PMPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return slowest;
}

int main(int argc, char **argv) {
  int rank, p, i, r, status = 0;
  int allgather;
  collective mine, library;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: deploy_timing alltoall|allgather|alltoallv BYTES...\n");
    MPI_Finalize();
    return 2;
  }
  if (strcmp(argv[1], "alltoallv") == 0) {
    status = time_alltoallv(argc, argv, rank, p);
    MPI_Finalize();
    return status;
  }
  allgather = strcmp(argv[1], "allgather") == 0;
  mine = allgather ? MPI_Allgather : MPI_Alltoall;
  library = allgather ? PMPI_Allgather : PMPI_Alltoall;
  for (i = 2; i < argc; ++i) {
    const int bytes = atoi(argv[i]);
    const size_t total = (size_t)bytes * p;
    unsigned char *send = malloc(total), *a = malloc(total), *b = malloc(total);
    double ours[REPEATS], theirs[REPEATS];
    size_t k;
    for (k = 0; k < total; ++k) send[k] = (unsigned char)(rank * 29 + k * 13);
    timed(mine, send, bytes, a); /* warm up: the interposer's cache, the library's connections */
    timed(library, send, bytes, b);
    for (r = 0; r < REPEATS; ++r) {
      ours[r] = timed(mine, send, bytes, a);
      theirs[r] = timed(library, send, bytes, b);
    }
    if (memcmp(a, b, total) != 0) {
      fprintf(stderr, "rank %d: %d bytes: results differ from the library's\n", rank, bytes);
      status = 1;
    }
    qsort(ours, REPEATS, sizeof(double), by_value);
    qsort(theirs, REPEATS, sizeof(double), by_value);
    if (rank == 0)
      printf("%s %d %d %.9f %.9f\n", argv[1], p, bytes, ours[REPEATS / 2], theirs[REPEATS / 2]);
    free(send);
    free(a);
    free(b);
  }
  MPI_Finalize();
  return status;
}
