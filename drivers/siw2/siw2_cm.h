/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 connection manager: everything the rest of the driver may call.
 *
 * - the module and each device: the workqueue, the endpoint list, the
 *   debugfs view;
 * - the QP: references on its endpoint and its request to close (the QP
 *   and the CM call each other: the CM moves the QP with siw2_qp_llp_up()
 *   and siw2_qp_llp_down());
 * - the iw_cm glue (siw2_iwcm.c): one call per iw_cm verb. The glue turns
 *   the IWCM's arguments and the module parameters into these calls; an
 *   endpoint is opaque to it (struct siw2_cep is in siw2_cep.h, which only
 *   the CM's own files include). These calls are in siw2_cm_api.c.
 */
#ifndef _SIW2_CM_H
#define _SIW2_CM_H

#include <linux/socket.h>
#include <linux/types.h>
#include <rdma/iw_cm.h>

struct seq_file;
struct siw2_cep;
struct siw2_device;

/**
 * struct siw2_cm_offer - what this side brings to an MPA Request or Reply
 * @qpn: number of the QP the connection is for
 * @ird: RDMA Read Requests the peer may have outstanding here (IRD)
 * @ord: RDMA Read Requests this side will have outstanding (ORD)
 * @pd: the ULP's private data, or NULL
 * @pd_len: its length
 * @rev: MPA revision of a Request (siw2_cm_connect() only)
 * @crc: ask for CRC in a Request (siw2_cm_connect() only)
 * @p2p: ask for peer-to-peer mode in a Rev 2 Request (siw2_cm_connect() only)
 * @caps: SIW2_MPA_CAP_* bits this side advertises (Rev 2)
 * @rtr_forms: SIW2_RTR_* forms offered in a Request, or accepted from one
 */
struct siw2_cm_offer {
	u32 qpn;
	u32 ird;
	u32 ord;
	const void *pd;
	u8 pd_len;
	u8 rev;
	bool crc;
	bool p2p;
	u8 caps;
	u8 rtr_forms;
};

/* Module and device (siw2_main.c, siw2_debugfs.c) */
int siw2_cm_init(void);
void siw2_cm_exit(void);
void siw2_cm_dev_init(struct siw2_device *sdev);
void siw2_cm_dev_drain(struct siw2_device *sdev);
void siw2_cm_show(struct seq_file *m, struct siw2_device *sdev);

/* The QP (siw2_qp.c) */
void siw2_cep_get(struct siw2_cep *cep);
void siw2_cep_put(struct siw2_cep *cep);
void siw2_cm_qp_close(struct siw2_cep *cep, bool abort);

/* The iw_cm glue (siw2_iwcm.c); in siw2_cm_api.c */
int siw2_cm_addr_len(const struct sockaddr_storage *a);
bool siw2_cm_addr_any(const struct sockaddr_storage *a);
bool siw2_cm_addr_loopback(const struct sockaddr_storage *a);
int siw2_cm_connect(struct iw_cm_id *id, const struct sockaddr_storage *laddr,
		    const struct sockaddr_storage *raddr, bool v6only,
		    const struct siw2_cm_offer *offer);
int siw2_cm_accept(struct siw2_cep *cep, struct iw_cm_id *id,
		   const struct siw2_cm_offer *offer);
int siw2_cm_reject(struct siw2_cep *cep, const void *pd, u8 pd_len);
struct siw2_cep *siw2_cm_listen(struct iw_cm_id *id,
				const struct sockaddr_storage *addr,
				bool v6only, int backlog, bool dormant);
void siw2_cm_unlisten(struct siw2_cep *listener);

/* The iw_cm verbs (siw2_iwcm.c), for the device's ops (siw2_main.c) */
int siw2_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw2_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw2_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pd_len);
int siw2_iw_create_listen(struct iw_cm_id *id, int backlog);
int siw2_iw_destroy_listen(struct iw_cm_id *id);

#endif /* _SIW2_CM_H */
