/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * siw2 connection manager: the iw_cm verbs and what the QP and device
 * code need from it.
 */
#ifndef _SIW2_CM_H
#define _SIW2_CM_H

#include <rdma/iw_cm.h>

struct seq_file;
struct siw2_cep;
struct siw2_device;

int siw2_cm_init(void);
void siw2_cm_exit(void);
void siw2_cm_dev_init(struct siw2_device *sdev);
void siw2_cm_dev_drain(struct siw2_device *sdev);
void siw2_cm_show(struct seq_file *m, struct siw2_device *sdev);

void siw2_cep_get(struct siw2_cep *cep);
void siw2_cep_put(struct siw2_cep *cep);
void siw2_cm_qp_close(struct siw2_cep *cep, bool abort);

int siw2_iw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw2_iw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw2_iw_reject(struct iw_cm_id *id, const void *pdata, u8 pd_len);
int siw2_iw_create_listen(struct iw_cm_id *id, int backlog);
int siw2_iw_destroy_listen(struct iw_cm_id *id);

#endif /* _SIW2_CM_H */
