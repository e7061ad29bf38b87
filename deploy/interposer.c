/* The PMPI interposer (deploy/interposer.c): MPI_Alltoall, MPI_Allgather and MPI_Alltoallv,
 * built by `phasecheck deploy` after deploy/runtime.c and the tables of the deployed
 * schedules, which define pc_deployed[] and pc_deployed_count. A call whose communicator has as
 * many ranks as a deployed schedule of its collective runs that schedule (ranks map by
 * communicator rank); every other call goes to the library's own PMPI_ routine. With
 * PHASECHECK_LOG=1 in the environment, rank 0 of the communicator says, once per collective,
 * size and outcome, which schedule ran or why the call fell back. docs/run.md, "Deploy". */

static const char *const pc_collective_names[] = {"MPI_Alltoall", "MPI_Allgather",
                                                  "MPI_Alltoallv"};

/* (collective, ranks, reason) already logged; a reason is a string constant, so compared by
 * address. Beyond the table's size nothing more is logged. */
enum { PC_LOGGED = 256 };
static struct {
  int collective, ranks;
  const char *reason;
} pc_logged[PC_LOGGED];
static int pc_logged_count = 0;

static void pc_log(MPI_Comm comm, int collective, int ranks, const pc_schedule *s,
                   const char *reason) {
  const char *env = getenv("PHASECHECK_LOG");
  int rank = 0, i, fresh = 1;
  if (!env || strcmp(env, "0") == 0 || env[0] == '\0') return;
  PMPI_Comm_rank(comm, &rank);
  if (rank != 0) return;
  pthread_mutex_lock(&pc_lock);
  for (i = 0; i < pc_logged_count; ++i)
    if (pc_logged[i].collective == collective && pc_logged[i].ranks == ranks &&
        pc_logged[i].reason == reason)
      fresh = 0;
  if (fresh && pc_logged_count < PC_LOGGED) {
    pc_logged[pc_logged_count].collective = collective;
    pc_logged[pc_logged_count].ranks = ranks;
    pc_logged[pc_logged_count].reason = reason;
    ++pc_logged_count;
  } else {
    fresh = 0;
  }
  pthread_mutex_unlock(&pc_lock);
  if (!fresh) return;
  if (reason)
    fprintf(stderr, "phasecheck: %s on %d ranks: falling back, %s\n",
            pc_collective_names[collective], ranks, reason);
  else
    fprintf(stderr, "phasecheck: %s on %d ranks: %s (verified)\n", pc_collective_names[collective],
            ranks, s->name);
  fflush(stderr);
}

static const pc_schedule *pc_find(int collective, int ranks) {
  int i;
  for (i = 0; i < pc_deployed_count; ++i)
    if (pc_deployed[i]->collective == collective && pc_deployed[i]->ranks == ranks)
      return pc_deployed[i];
  return NULL;
}

/* A scheduled collective of the runtime (pc_alltoall, pc_allgather) and the library's own. */
typedef int (*pc_scheduled)(const pc_schedule *, const void *, int, MPI_Datatype, void *, int,
                            MPI_Datatype, MPI_Comm, const char **);
typedef int (*pc_library)(const void *, int, MPI_Datatype, void *, int, MPI_Datatype, MPI_Comm);

/* The call by the deployed schedule of `collective` for the communicator's size, or by `library`
 * when there is none or the schedule cannot serve it; logged as PHASECHECK_LOG asks. */
static int pc_interpose(int collective, pc_scheduled scheduled, pc_library library,
                        const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int size = 0, err;
  const char *why = NULL;
  const pc_schedule *s;
  if (comm == MPI_COMM_NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
    return library(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  s = pc_find(collective, size);
  if (!s) {
    pc_log(comm, collective, size, NULL, "no schedule");
    return library(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  }
  err = scheduled(s, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &why);
  if (err != PC_FALLBACK) {
    pc_log(comm, collective, size, s, NULL);
    return err;
  }
  pc_log(comm, collective, size, s, why);
  return library(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return pc_interpose(PC_ALLTOALL, pc_alltoall, PMPI_Alltoall, sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return pc_interpose(PC_ALLGATHER, pc_allgather, PMPI_Allgather, sendbuf, sendcount, sendtype,
                      recvbuf, recvcount, recvtype, comm);
}

/* As pc_interpose, with MPI_Alltoallv's arguments: the decision rests on the communicator's size
 * and the schedule's existence, never on the counts (runtime.c, "MPI_Alltoallv"). */
int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  int size = 0, err;
  const char *why = NULL;
  const pc_schedule *s;
  if (comm != MPI_COMM_NULL && PMPI_Comm_size(comm, &size) == MPI_SUCCESS) {
    s = pc_find(PC_ALLTOALLV, size);
    if (!s) {
      pc_log(comm, PC_ALLTOALLV, size, NULL, "no schedule");
    } else {
      err = pc_alltoallv(s, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm, &why);
      if (err != PC_FALLBACK) {
        pc_log(comm, PC_ALLTOALLV, size, s, NULL);
        return err;
      }
      pc_log(comm, PC_ALLTOALLV, size, s, why);
    }
  }
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                        recvtype, comm);
}
