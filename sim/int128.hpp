#pragma once
// 128-bit integers for exact time scaling (g++ and clang both provide them).
namespace hasim {
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;
}  // namespace hasim
