// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * fdma.ko: requests through io_uring (FDMA_URING_CMD_SUBMIT, an
 * IORING_OP_URING_CMD on /dev/fdmaN; include/fdma_ioctl.h).
 *
 * A command is FDMA_IOC_SUBMIT's batch, checked and posted by fdma_ioctl.c,
 * with a group (struct fdma_group) in the command's own pdu in place of
 * the file's completion queue. The last of its requests to finish calls
 * uring_group_done() under the channel's lock (the interrupt thread, an
 * ioctl, the watchdog or a reset); the CQE is posted from the submitting
 * task (io_uring_cmd_complete_in_task()), as io_uring wants.
 *
 * Cancellation. A command in flight holds a reference to the file, so the
 * file is not released under it; but its ring or its task can go, and
 * io_uring then waits for every command to complete (the ring's teardown,
 * in a kworker, after the process is gone). Since Linux 6.7 a
 * driver is told (io_uring_cmd_mark_cancelable(), IO_URING_F_CANCEL): the
 * group is then canceled as a file closed with transfers in flight is,
 * by a reset of its channel. Before, nothing tells us, so only requests
 * that end on their own are taken: those of memory-mapped channels, which
 * the watchdog times out when the device makes no progress (copies are
 * not commands: FDMA_IOC_SUBMIT's checks refuse memory-to-memory
 * channels). A stream request waits for its frame as long as it takes;
 * there it is refused (EOPNOTSUPP, FDMA_FEAT_URING_STREAM clear). Only the
 * teardown of the ring or its task cancels: IORING_OP_ASYNC_CANCEL does
 * not reach a driver's command.
 *
 * Kernel interfaces: 6.1's and that of 6.7 on (fdma_compat.h); the
 * releases between are not offered the command (FDMA_FEAT_URING_CMD
 * clear, EOPNOTSUPP).
 */
#include <linux/fs.h>

#include "fdma_compat.h"
#include "fdma_drv.h"

u32 fdma_uring_features(void)
{
	if (!FDMA_URING)
		return 0;
#ifdef FDMA_URING_CANCEL
	return FDMA_FEAT_URING_CMD | FDMA_FEAT_URING_STREAM;
#else
	return FDMA_FEAT_URING_CMD;
#endif
}

#if FDMA_URING
/* The group lives in the command's pdu, for as long as the command. */
static struct fdma_group *uring_group(struct io_uring_cmd *cmd)
{
	BUILD_BUG_ON(sizeof(struct fdma_group) > sizeof_field(struct io_uring_cmd, pdu));
	BUILD_BUG_ON(offsetof(struct io_uring_cmd, pdu) % __alignof__(struct fdma_group));
	return (struct fdma_group *)cmd->pdu;
}

/* In the submitting task: the CQE. */
static void uring_cmd_tw(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct fdma_group *g = uring_group(cmd);

	io_uring_cmd_done(cmd, g->res ? g->res : (ssize_t)g->bytes, 0, issue_flags);
}

static void uring_group_done(struct fdma_group *g)
{
	struct io_uring_cmd *cmd = container_of((void *)g, struct io_uring_cmd, pdu);

	io_uring_cmd_complete_in_task(cmd, uring_cmd_tw);
}

int fdma_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	struct fdma_file *f = cmd->file->private_data;
	struct fdma_group *g = uring_group(cmd);
	const struct fdma_uring_submit *p;
	struct fdma_uring_submit sc;
	int ret;

#ifdef FDMA_URING_CANCEL
	/* Only for a command marked below, never done yet: g is ours. */
	if (issue_flags & IO_URING_F_CANCEL) {
		fdma_chan_cancel_group(&f->fdev->chan[g->chan], g);
		return 0;
	}
#endif
	if (cmd->cmd_op != FDMA_URING_CMD_SUBMIT)
		return -ENOTTY;
	if (!(cmd->file->f_mode & FMODE_WRITE))
		return -EBADF;
	/* The SQE is user space's memory: each field read once. */
	p = fdma_uring_payload(cmd);
	sc.reqs = READ_ONCE(p->reqs);
	sc.chan = READ_ONCE(p->chan);
	sc.count = READ_ONCE(p->count);
	sc.rsvd = READ_ONCE(p->rsvd);
	if (sc.rsvd || sc.chan >= f->fdev->caps.nchan)
		return -EINVAL;
#ifndef FDMA_URING_CANCEL
	if (f->fdev->caps.chan_caps[sc.chan] & FDMA_CH_CAP_STREAM)
		return -EOPNOTSUPP;
#endif
	*g = (struct fdma_group){ .done = uring_group_done, .chan = sc.chan };
#ifdef FDMA_URING_CANCEL
	/*
	 * Marked before it is posted: once posted it may complete at any
	 * time (from io-wq, while the task runs its task work), and a
	 * command marked after its done would stay on the ring's list.
	 */
	io_uring_cmd_mark_cancelable(cmd, issue_flags);
#endif
	/*
	 * An error from here on is a completion too (a marked command must
	 * go through io_uring_cmd_done()), and so is EAGAIN: returned, it
	 * would have io_uring issue the command again from io-wq, reading
	 * the requests again, after later SQEs.
	 */
	ret = fdma_ioc_submit_group(f, sc.chan, sc.count, sc.reqs, g);
	if (ret)
		io_uring_cmd_done(cmd, ret, 0, issue_flags);
	return -EIOCBQUEUED;
}
#else
int fdma_uring_cmd(struct io_uring_cmd *cmd, unsigned int issue_flags)
{
	return -EOPNOTSUPP;
}
#endif
