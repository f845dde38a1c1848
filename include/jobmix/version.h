/* SPDX-License-Identifier: GPL-2.0-only */
/* jobmix's version: --version, the man page, run.json's env, the package (the Makefile reads it). */
#ifndef JOBMIX_VERSION_H
#define JOBMIX_VERSION_H

#define JOBMIX_VERSION "0.1.0"

#endif
