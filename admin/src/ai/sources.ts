/** A cited passage's place in its upload, and a citation as the chat socket sends it. */
export interface Place {
  page?: number;
  heading?: string;
  start?: number;
  end?: number;
  line?: number;
  row?: number;
  path?: string;
}

export interface Source {
  n: number;
  object_type: string;
  object_id: number | string;
  /** The upload the passage comes from, when it comes from one. */
  submission_id?: number | null;
  title: string;
  snippet: string;
  place: Place;
  url?: string | null;
}
