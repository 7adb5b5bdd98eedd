// Types for node-version.mjs, which stays plain JavaScript so that an old Node can run it.
export declare function tooOldNodeMessage(version: string, executable?: string): string | undefined;
