/* Little-endian reads of the native HWP 5 reader. The caller has
 * checked that the bytes are there. */
#ifndef HWPSCAN_LE_H
#define HWPSCAN_LE_H

#include <stdint.h>

static inline uint32_t
u32_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t
u16_at(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

#endif
