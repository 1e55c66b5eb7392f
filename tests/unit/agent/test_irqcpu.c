/* SPDX-License-Identifier: MIT */
/*
 * Where a device's completions land: /proc/interrupts texts (this VM's virtio disk, whose
 * one queue interrupts CPU 1; a four-queue NVMe spread over four CPUs; a device counted too
 * few times to say), the CPU list's words, and this machine's root disk resolved.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "irqcpu.h"
#include "kview.h"

/* As this VM prints it: the disk is virtio1 (vectors 35 and 36), virtio2 a NIC. */
static const char virtio[] =
    "           CPU0       CPU1       \n"
    "  1:          0          9   IO-APIC   1-edge      i8042\n"
    " 35:          0          1  PCI-MSIX-0000:00:02.0   0-edge      virtio1-config\n"
    " 36:         31     527719  PCI-MSIX-0000:00:02.0   1-edge      virtio1-req.0\n"
    " 38:       2593          0  PCI-MSIX-0000:00:03.0   1-edge      virtio2-input.0\n"
    "NMI:          0          0   Non-maskable interrupts\n"
    "LOC:     871234     912345   Local timer interrupts\n";

/* Four queues with managed affinity: every CPU completes its own. CPU 2 is offline. */
static const char nvme[] = "           CPU0       CPU1       CPU3       CPU4\n"
                           " 40:        120          0          0          0  "
                           "PCI-MSIX-0000:01:00.0   0-edge      nvme0q0\n"
                           " 41:      90000          0          0          0  "
                           "PCI-MSIX-0000:01:00.0   1-edge      nvme0q1\n"
                           " 42:          0      81000          0          0  "
                           "PCI-MSIX-0000:01:00.0   2-edge      nvme0q2\n"
                           " 43:          0          0      85000          0  "
                           "PCI-MSIX-0000:01:00.0   3-edge      nvme0q3\n"
                           " 44:          0          0          0      79000  "
                           "PCI-MSIX-0000:01:00.0   4-edge      nvme0q4\n";

static void test_virtio_one_queue(void **state)
{
	const int irqs[] = {35, 36};
	cpu_set_t set;
	char list[32];

	(void)state;
	assert_int_equal(irqcpu_parse(virtio, irqs, 2, &set), 1);
	assert_false(CPU_ISSET(0, &set)); /* 31 of 527,751: another CPU's stray interrupts */
	assert_true(CPU_ISSET(1, &set));
	irqcpu_format(&set, list, sizeof(list));
	assert_string_equal(list, "1");
}

static void test_nvme_every_cpu(void **state)
{
	const int irqs[] = {40, 41, 42, 43, 44};
	cpu_set_t set;
	char list[32];

	(void)state;
	assert_int_equal(irqcpu_parse(nvme, irqs, 5, &set), 4);
	irqcpu_format(&set, list, sizeof(list));
	assert_string_equal(list, "0-1,3-4"); /* the columns' own numbers, not their order */
}

static void test_too_few_or_none(void **state)
{
	const int config_only[] = {35}, absent[] = {99};
	cpu_set_t set;

	(void)state;
	/* one interrupt says nothing of where completions land */
	assert_int_equal(irqcpu_parse(virtio, config_only, 1, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 0);
	assert_int_equal(irqcpu_parse(virtio, absent, 1, &set), 0);
	assert_int_equal(irqcpu_parse("", absent, 1, &set), 0);
	assert_int_equal(irqcpu_parse("garbage without a header", absent, 1, &set), 0);
}

/* This machine's root disk: a device with interrupts of its own says where they land. */
static void test_root_disk(void **state)
{
	struct kview kv;
	struct stat st;
	char why[160], disk[256], *slash;
	cpu_set_t set;
	int n;

	(void)state;
	assert_int_equal(stat("/", &st), 0);
	kview_resolve(&kv, st.st_dev, why, sizeof(why));
	if (kv.kind != KVIEW_BLOCK) {
		print_message("# / is on no block device (%s): skipped\n", why);
		return;
	}
	snprintf(disk, sizeof(disk), "%s", kv.stat);
	slash = strrchr(disk, '/');
	*slash = '\0';
	n = irqcpu_of_disk(disk, &set, why, sizeof(why));
	if (n == 0) {
		assert_true(why[0] != '\0'); /* it says why not */
		print_message("# %s: %s\n", kv.name, why);
		return;
	}
	assert_int_equal(n, CPU_COUNT(&set));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_virtio_one_queue),
	    cmocka_unit_test(test_nvme_every_cpu),
	    cmocka_unit_test(test_too_few_or_none),
	    cmocka_unit_test(test_root_disk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
