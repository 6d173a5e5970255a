// SPDX-License-Identifier: MIT
/*
 * fdma-gpu-stream: frames from an fdma stream channel into GPU memory,
 * checked there by a kernel, with the CPU path one option away.
 *
 *   --mode gpu   (GPU-direct) cudaMalloc'd memory is exported as a dma-buf
 *                (cuMemGetHandleForAddressRange), imported into fdma
 *                (fdma_buf_import_dmabuf) and streamed into: the device
 *                writes the frames straight into GPU memory.
 *   --mode nvp2p GPU-direct through NVIDIA's peer-to-peer API instead
 *                (fdma_buf_import_nvp2p: fdma.ko built over nv-p2p.h):
 *                cudaMalloc'd memory on a discrete GPU, cudaHostAlloc'd on
 *                an integrated one (Jetson), pinned once.
 *   --mode host  the same stream into host buffers, each frame copied to
 *                the GPU (cudaMemcpyAsync) before the same kernel.
 *
 * Everything else is the same code: the stream, the test generator's
 * frames, the kernel that checks every payload word of each frame, the
 * buffer handed back to the device once the kernel that read it is done
 * (a CUDA event per buffer). It prints frames, bytes, errors and MB/s.
 *
 * Built against CUDA's static runtime; the driver's entry points are
 * looked up at run time, so the program runs on a machine with no NVIDIA
 * driver and says so: exit 77, "no GPU". C in a .cu file: nvcc wants it.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdma.h"

#define FRAME_MAGIC 0x304d5246u /* "FRM0": the test generator's header */
#define HDR_BYTES 32

struct opts {
	const char *uri;
	int gpu;		/* 1: GPU-direct (dma-buf), 2: GPU-direct (NVIDIA P2P), 0: host buffers */
	unsigned int frames, nbufs;
	uint32_t frame_len;
};

/* Check one generator frame in GPU memory: header, then every payload word. */
__global__ void check_frame(const uint8_t *p, uint64_t len, uint32_t want_len,
			    unsigned long long *errors)
{
	const uint32_t *h = (const uint32_t *)p;
	uint64_t nwords = (want_len - HDR_BYTES) / 8;
	uint64_t seq = h[1];

	if (blockIdx.x == 0 && threadIdx.x == 0 &&
	    (len != want_len || h[0] != FRAME_MAGIC || h[2] != want_len))
		atomicAdd(errors, 1ull);
	for (uint64_t i = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; i < nwords;
	     i += (uint64_t)gridDim.x * blockDim.x) {
		const uint64_t *w = (const uint64_t *)(p + HDR_BYTES);

		if (w[i] != (seq << 32 | i))
			atomicAdd(errors, 1ull);
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fdma-gpu-stream [--uri URI] [--mode gpu|host] [--frames N] [--frame-len BYTES]\n"
		"                       [--bufs N]\n"
		"  --uri URI        the fdma device (default sim:paced=0)\n"
		"  --mode MODE      gpu: frames straight into GPU memory, imported as a dma-buf\n"
		"                   (default); nvp2p: the same through NVIDIA's P2P API; host:\n"
		"                   into host buffers, then copied\n"
		"  --frames N       frames to take (default 1000)\n"
		"  --frame-len B    bytes per frame, 40..4 MiB (default 65536)\n"
		"  --bufs N         frame buffers armed (default 8)\n"
		"exit: 0 every frame checked good, 1 errors, 2 usage or set-up error, 77 no GPU\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
	*o = (struct opts){ "sim:paced=0", 1, 1000, 8, 65536 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout);
			exit(0);
		}
		if (!v) {
			fprintf(stderr, "fdma-gpu-stream: %s needs a value\n", a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--uri")) {
			o->uri = v;
		} else if (!strcmp(a, "--mode")) {
			if (strcmp(v, "gpu") && strcmp(v, "nvp2p") && strcmp(v, "host")) {
				fprintf(stderr, "fdma-gpu-stream: --mode %s: gpu, nvp2p or host\n", v);
				return -1;
			}
			o->gpu = !strcmp(v, "gpu") ? 1 : !strcmp(v, "nvp2p") ? 2 : 0;
		} else if (!strcmp(a, "--frames")) {
			o->frames = (unsigned int)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--frame-len")) {
			o->frame_len = (uint32_t)strtoul(v, NULL, 0);
		} else if (!strcmp(a, "--bufs")) {
			o->nbufs = (unsigned int)strtoul(v, NULL, 0);
		} else {
			fprintf(stderr, "fdma-gpu-stream: unknown option %s (see --help)\n", a);
			return -1;
		}
	}
	if (o->frame_len < 40 || o->frame_len > (4u << 20) || o->frames == 0 ||
	    o->nbufs < 2 || o->nbufs > 256) {
		fprintf(stderr, "fdma-gpu-stream: --frame-len 40..4194304, --frames >= 1, --bufs 2..256\n");
		return -1;
	}
	return 0;
}

/* The two driver calls the GPU-direct path needs, found at run time. */
struct drv {
	CUresult (*get_attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*get_handle)(void *, CUdeviceptr, size_t, CUmemRangeHandleType,
			       unsigned long long);
};

static int find_driver(struct drv *d)
{
	cudaDriverEntryPointQueryResult q1, q2;

	if (cudaGetDriverEntryPointByVersion("cuDeviceGetAttribute", (void **)&d->get_attr, 12000,
					     cudaEnableDefault, &q1) != cudaSuccess ||
	    cudaGetDriverEntryPointByVersion("cuMemGetHandleForAddressRange",
					     (void **)&d->get_handle, 12000, cudaEnableDefault,
					     &q2) != cudaSuccess ||
	    q1 != cudaDriverEntryPointSuccess || q2 != cudaDriverEntryPointSuccess)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct fdma_dev *dev = NULL;
	struct fdma_stream *s = NULL;
	char err[256] = "";
	int ngpu = 0, ch, ret, rc = 2, handles[256], integrated = 0, host_alloc = 0;
	unsigned int held[256], nheld = 0, head = 0, nimported = 0;
	size_t slot;
	uint8_t *dmem = NULL;
	unsigned long long *derr = NULL, errors = 0;
	cudaStream_t cs;
	cudaEvent_t ev[256];
	cudaError_t ce;
	double t0, t1;
	uint64_t bytes = 0;

	if (parse(argc, argv, &o))
		return 2;
	ce = cudaGetDeviceCount(&ngpu);
	if (ce != cudaSuccess || ngpu == 0) {
		printf("fdma-gpu-stream: no GPU (%s)\n",
		       ce != cudaSuccess ? cudaGetErrorString(ce) : "no CUDA device");
		return 77;
	}
	ret = fdma_open(&dev, o.uri, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "fdma-gpu-stream: %s: %s\n", o.uri, err);
		return 2;
	}
	ch = fdma_find_chan(dev, FDMA_C2H, FDMA_KIND_STREAM);
	if (ch < 0) {
		fprintf(stderr, "fdma-gpu-stream: %s has no C2H stream channel\n", o.uri);
		goto out;
	}
	/* Whole 64 KiB per buffer: a GPU page, and a multiple of any host page. */
	slot = ((size_t)o.frame_len + 65535) & ~(size_t)65535;
	if (cudaStreamCreate(&cs) != cudaSuccess || cudaMalloc((void **)&derr, sizeof(*derr)) ||
	    cudaMemset(derr, 0, sizeof(*derr)) || cudaDeviceGetAttribute(&integrated,
									  cudaDevAttrIntegrated, 0)) {
		fprintf(stderr, "fdma-gpu-stream: CUDA set-up failed\n");
		goto out;
	}
	/* Jetson's P2P API pins host memory the GPU shares; a discrete GPU's, its own. */
	host_alloc = o.gpu == 2 && integrated;
	ce = host_alloc ? cudaHostAlloc((void **)&dmem, slot * o.nbufs, cudaHostAllocDefault)
			: cudaMalloc((void **)&dmem, slot * o.nbufs);
	if (ce != cudaSuccess) {
		fprintf(stderr, "fdma-gpu-stream: %zu bytes of GPU memory: %s\n", slot * o.nbufs,
			cudaGetErrorString(ce));
		dmem = NULL;
		goto out;
	}
	for (unsigned int i = 0; i < o.nbufs; i++)
		cudaEventCreateWithFlags(&ev[i], cudaEventDisableTiming);

	if (o.gpu == 2) {
		for (unsigned int i = 0; i < o.nbufs; i++) {
			handles[i] = fdma_buf_import_nvp2p(dev, (uint64_t)(uintptr_t)dmem +
								(uint64_t)i * slot, slot);
			if (handles[i] < 0) {
				fprintf(stderr, "fdma-gpu-stream: %s\n", fdma_errmsg(dev));
				goto out;
			}
			nimported++;
		}
		ret = fdma_stream_open_bufs(dev, ch, handles, o.nbufs, &s);
	} else if (o.gpu) {
		struct drv d;
		int fd = -1, ok = 0;

		if (find_driver(&d) || d.get_attr(&ok, CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED, 0) ||
		    !ok) {
			fprintf(stderr, "fdma-gpu-stream: this GPU or driver cannot export dma-bufs; use --mode host\n");
			goto out;
		}
		if (d.get_handle(&fd, (CUdeviceptr)dmem, slot * o.nbufs,
				 CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0) || fd < 0) {
			fprintf(stderr, "fdma-gpu-stream: cuMemGetHandleForAddressRange failed\n");
			goto out;
		}
		/* One buffer per frame window; the driver keeps its own references. */
		for (unsigned int i = 0; i < o.nbufs; i++) {
			handles[i] = fdma_buf_import_dmabuf(dev, fd, (uint64_t)i * slot, slot);
			if (handles[i] < 0) {
				fprintf(stderr, "fdma-gpu-stream: import: %s\n", fdma_errmsg(dev));
				close(fd);
				goto out;
			}
			nimported++;
		}
		close(fd);
		ret = fdma_stream_open_bufs(dev, ch, handles, o.nbufs, &s);
	} else {
		ret = fdma_stream_open(dev, ch, o.nbufs, slot, &s);
	}
	if (ret < 0) {
		fprintf(stderr, "fdma-gpu-stream: stream: %s\n", fdma_errmsg(dev));
		goto out;
	}
	ret = fdma_chan_set_testgen(dev, ch, o.frame_len, 0, 1);
	if (ret < 0) {
		fprintf(stderr, "fdma-gpu-stream: test generator: %s\n", fdma_errmsg(dev));
		goto out;
	}

	t0 = now_s();
	for (unsigned int k = 0; k < o.frames; k++) {
		struct fdma_frame f;
		const uint8_t *p;

		ret = fdma_stream_get(s, &f, 5000000);
		if (ret < 0) {
			fprintf(stderr, "fdma-gpu-stream: frame %u: %s\n", k, fdma_errmsg(dev));
			goto out;
		}
		/* GPU-direct: the frame is there already; host: copy it there. */
		p = dmem + (size_t)f.index * slot;
		if (!o.gpu)
			cudaMemcpyAsync((void *)p, f.data, f.len, cudaMemcpyHostToDevice, cs);
		check_frame<<<32, 256, 0, cs>>>(p, f.len, o.frame_len, derr);
		cudaEventRecord(ev[f.index], cs);
		bytes += f.len;
		held[(head + nheld++) % 256] = f.index;
		/* Buffers whose kernel is done go back to the device, oldest first. */
		while (nheld && (nheld == o.nbufs ||
				 cudaEventQuery(ev[held[head]]) == cudaSuccess)) {
			struct fdma_frame r = { NULL, 0, held[head], 0 };

			cudaEventSynchronize(ev[held[head]]);
			fdma_stream_release(s, &r);
			head = (head + 1) % 256;
			nheld--;
		}
	}
	cudaStreamSynchronize(cs);
	t1 = now_s();
	fdma_chan_set_testgen(dev, ch, o.frame_len, 0, 0);
	cudaMemcpy(&errors, derr, sizeof(errors), cudaMemcpyDeviceToHost);
	printf("{\"mode\":\"%s\",\"frames\":%u,\"bytes\":%llu,\"errors\":%llu,\"seconds\":%.3f,\"mb_s\":%.1f}\n",
	       o.gpu == 2 ? "nvp2p" : o.gpu ? "gpu" : "host", o.frames, (unsigned long long)bytes, errors, t1 - t0,
	       bytes / (t1 - t0) / 1e6);
	rc = errors ? 1 : 0;
out:
	fdma_stream_close(s);
	for (unsigned int i = 0; i < nimported; i++)
		fdma_buf_free(dev, handles[i]);
	fdma_close(dev);
	if (host_alloc)
		cudaFreeHost(dmem);
	else
		cudaFree(dmem);
	cudaFree(derr);
	return rc;
}
