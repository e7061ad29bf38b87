/// Recursive-doubling allgather written for powers of two only: at distance d = 1, 2, 4, ...
/// rank r exchanges everything it has with r xor d, skipping partners that do not exist. Off
/// powers of two some contributions never arrive (placement and delivery name them).
#include <mpi.h>

int doubling_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, recv_extent;
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  char* out = recvbuf;
  int err = MPI_SUCCESS;
  if (sendbuf != MPI_IN_PLACE)
    err = MPI_Sendrecv(sendbuf, sendcount, sendtype, rank, 17, out + rank * recv_extent * recvcount,
                       recvcount, recvtype, rank, 17, comm, MPI_STATUS_IGNORE);
  for (int d = 1; d < size && err == MPI_SUCCESS; d <<= 1) {
    const int partner = rank ^ d;
    if (partner >= size) continue;
    // Before this step rank r holds the d contributions of its aligned group of size d.
    const int mine = rank & ~(d - 1), theirs = partner & ~(d - 1);
    const int have = mine + d <= size ? d : size - mine;
    const int get = theirs + d <= size ? d : size - theirs;
    err = MPI_Sendrecv(out + mine * recv_extent * recvcount, have * recvcount, recvtype, partner, 17,
                       out + theirs * recv_extent * recvcount, get * recvcount, recvtype, partner,
                       17, comm, MPI_STATUS_IGNORE);
  }
  return err;
}
