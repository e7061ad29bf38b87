/// A correct pairwise alltoall on MPI point-to-point, with the signature of MPI_Alltoall: at step
/// s, rank r sends its block for r+s and receives the block of r-s (s = 0 is the self copy, sent
/// to itself). In place, each pair exchanges once, the outgoing block packed first so that the
/// receive may overwrite it.
#include <mpi.h>
#include <stdlib.h>

int pairwise_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  MPI_Aint lb, send_extent, recv_extent;
  MPI_Type_get_extent(recvtype, &lb, &recv_extent);
  char* recv_bytes = recvbuf;
  const int tag = 4242;
  if (sendbuf == MPI_IN_PLACE) {
    int packed_size = 0;
    MPI_Pack_size(recvcount, recvtype, comm, &packed_size);
    char* outgoing = malloc(packed_size > 0 ? (size_t)packed_size : 1);
    // The pairs (i, j) in one order on every rank, as Open MPI's basic in-place does: each
    // Sendrecv meets its partner's, and the own block stays where it is.
    for (int i = 0; i < size; ++i) {
      for (int j = i + 1; j < size; ++j) {
        if (rank != i && rank != j) continue;
        int peer = rank == i ? j : i;
        char* block = recv_bytes + peer * recv_extent * recvcount;
        int position = 0;
        MPI_Pack(block, recvcount, recvtype, outgoing, packed_size, &position, comm);
        int err = MPI_Sendrecv(outgoing, position, MPI_PACKED, peer, tag, block, recvcount,
                               recvtype, peer, tag, comm, MPI_STATUS_IGNORE);
        if (err != MPI_SUCCESS) return err;
      }
    }
    free(outgoing);
    return MPI_SUCCESS;
  }
  MPI_Type_get_extent(sendtype, &lb, &send_extent);
  const char* send_bytes = sendbuf;
  for (int step = 0; step < size; ++step) {
    int to = (rank + step) % size, from = (rank - step + size) % size;
    MPI_Request requests[2];
    MPI_Irecv(recv_bytes + from * recv_extent * recvcount, recvcount, recvtype, from, tag, comm,
              &requests[0]);
    MPI_Isend(send_bytes + to * send_extent * sendcount, sendcount, sendtype, to, tag, comm,
              &requests[1]);
    int err = MPI_Waitall(2, requests, MPI_STATUSES_IGNORE);
    if (err != MPI_SUCCESS) return err;
  }
  return MPI_SUCCESS;
}
