/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * config/: routerd's configuration file (docs/configuration.md; the struct
 * itself is include/sy_config.h, which both planes read). The face of the
 * folder. One concept per file:
 *
 *   config.c       the JSON -> struct sy_config, every key checked with an
 *                  error naming it
 *   config_vrrp.c  the `vrrp` key
 *   eal_args.c     the EAL command line built from the config (--no-pci
 *                  unless a port names a PCI device)
 */
#ifndef SY_CONTROL_CONFIG_H
#define SY_CONTROL_CONFIG_H

#include "sy_config.h"
#include "config/config_error.h"
#include "config/config_vrrp.h"
#include "config/eal_args.h"

#endif
