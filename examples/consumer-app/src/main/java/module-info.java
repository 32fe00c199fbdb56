// SPDX-License-Identifier: Apache-2.0
/** An application that uses DAT through the registry and knows no provider by name. */
module com.example.datapp {
    requires dat.registry;
}
