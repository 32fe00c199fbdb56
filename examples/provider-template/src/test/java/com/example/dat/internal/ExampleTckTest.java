// SPDX-License-Identifier: Apache-2.0
package com.example.dat.internal;

import dat.api.DatIa;
import dat.tck.DatProviderVerification;

/**
 * The whole conformance kit against the example provider, as a vendor runs it from its own build: one JUnit test
 * per DAT rule. The rules of features the attributes deny (SRQs, memory windows, receive counts, completion flags)
 * are skipped, each with the attribute that denies it; every other rule must pass.
 */
// @start region="verification"
class ExampleTckTest extends DatProviderVerification {

    @Override
    public DatIa openIa() {
        return new ExampleProvider().open("example0", "", 16);
    }
}
// @end
