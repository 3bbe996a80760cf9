/* The shared library of the wa tools. */
#ifndef WA_H
#define WA_H

#include "atomic.h"
#include "binfile.h"
#include "msg.h"
#include "opt.h"
#include "progress.h"
#include "tsv.h"

#endif
