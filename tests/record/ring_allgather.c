/// A correct ring allgather: the own contribution copied in place (a message to itself), then
/// p - 1 steps, each passing on to rank + 1 the contribution received from rank - 1 the step
/// before.
#include <mpi.h>

int ring_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, recv_extent;
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  char* out = recvbuf;
  int err = MPI_SUCCESS;
  if (sendbuf != MPI_IN_PLACE)
    err = MPI_Sendrecv(sendbuf, sendcount, sendtype, rank, 16, out + rank * recv_extent * recvcount,
                       recvcount, recvtype, rank, 16, comm, MPI_STATUS_IGNORE);
  const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
  for (int step = 0; step < size - 1 && err == MPI_SUCCESS; ++step) {
    const int give = (rank - step + size) % size, take = (rank - step - 1 + size) % size;
    err = MPI_Sendrecv(out + give * recv_extent * recvcount, recvcount, recvtype, right, 16,
                       out + take * recv_extent * recvcount, recvcount, recvtype, left, 16, comm,
                       MPI_STATUS_IGNORE);
  }
  return err;
}
