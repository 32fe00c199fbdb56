// SPDX-License-Identifier: Apache-2.0
package dat.provider.loopback.internal;

/** What the fabric knows of a listener: a {@link LoopbackPsp} or a {@link LoopbackRsp}. */
interface ServicePoint {

    /** {@return the IA listening} */
    LoopbackIa owner();

    /** {@return the qualifier listened on} */
    long connQual();

    /**
     * Hands an arriving connection request to the listener. Caller holds {@link LoopbackFabric#connLock}.
     *
     * @param cr the request
     * @return {@code false} when the listener cannot take it (its CR EVD is full or closed, an RSP already
     *     took its one request); the requester is then rejected
     */
    boolean offer(LoopbackCr cr);
}
