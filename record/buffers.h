/// The buffers of one case (/work/notes/recording35.md, "Elements" and "The types"): datatypes of
/// one signature, allocations with guards, the element offsets taken from MPI's own layout, and
/// the tagged initial contents.
#ifndef PHASECHECK_RECORD_BUFFERS_H
#define PHASECHECK_RECORD_BUFFERS_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/// Bytes of guard before and after the described data of every allocation.
#define BUFFERS_GUARD 64

/// tag(origin, dest, index) = 0xE7 << 56 | origin << 40 | dest << 24 | index.
uint64_t buffers_tag(uint64_t origin, uint64_t dest, uint64_t index);
/// The dest of an allgather element (it goes to every rank).
#define BUFFERS_EVERY_RANK 0xFFFFu

/// The datatypes and counts of a case; COUNT = 0 keeps the types of COUNT = 1 with count 0.
struct buffers_types {
  MPI_Datatype send_type;
  int send_count;
  MPI_Datatype recv_type;
  int recv_count;
};

/// Whether NAME is one of contiguous, strided, resized, different.
int buffers_types_known(const char* name);
/// Builds (commits) the types NAME describes for COUNT elements per block.
struct buffers_types buffers_types_make(const char* name, int count);
void buffers_types_free(struct buffers_types* types);

/// One allocation: guards, BLOCKS x COUNT items of TYPE, guards; `offsets` the byte offset (from
/// base) of each described element in MPI order.
struct buffers_allocation {
  unsigned char* base;
  size_t bytes;
  uint64_t* offsets;
  size_t elements;
};

/// Allocates for BLOCKS blocks of COUNT items of TYPE, all guard bytes, and finds the element
/// offsets by unpacking numbered markers with the type (no layout arithmetic of ours). Exits 3 if
/// MPI's layout does not show every marker exactly once.
struct buffers_allocation buffers_allocate(MPI_Datatype type, int count, int blocks);
void buffers_free(struct buffers_allocation* allocation);
/// Writes VALUE into described element I.
void buffers_set(struct buffers_allocation* allocation, size_t i, uint64_t value);

#endif
