// The account service's request and response schemas (issue 11: one contract per service).
export {};
