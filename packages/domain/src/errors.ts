/** One problem with a plant's input: the field it concerns ("" for the whole input) and what is wrong. */
export interface PlantIssue {
  readonly field: string;
  readonly problem: string;
}

/** The input is not a valid NewPlant. Nothing was stored. */
export class InvalidPlantError extends Error {
  override readonly name = 'InvalidPlantError';
  readonly issues: readonly PlantIssue[];

  constructor(issues: readonly PlantIssue[]) {
    super(
      `invalid plant: ${issues.map(({ field, problem }) => (field ? `${field} ${problem}` : problem)).join('; ')}`,
    );
    this.issues = issues;
  }
}

/** A plant with this id is stored with other content. Nothing was changed. */
export class PlantConflictError extends Error {
  override readonly name = 'PlantConflictError';
  readonly id: bigint;

  constructor(id: bigint) {
    super(`a plant with id ${id} already exists with a different name or tag`);
    this.id = id;
  }
}

/** The input of a read or a removal is invalid: the id, the page limit, its cursor or its tag. Nothing was read or changed. */
export class InvalidParameterError extends Error {
  override readonly name = 'InvalidParameterError';
  /** Each bad parameter, by name (`id`, `limit`, `after`, `tag`), with what is wrong with it. */
  readonly issues: readonly PlantIssue[];

  constructor(issues: readonly PlantIssue[]) {
    super(`invalid parameter: ${issues.map(({ field, problem }) => `${field} ${problem}`).join('; ')}`);
    this.issues = issues;
  }
}

/** No plant is stored under this id. */
export class PlantNotFoundError extends Error {
  override readonly name = 'PlantNotFoundError';
  readonly id: bigint;

  constructor(id: bigint) {
    super(`there is no plant with id ${id}`);
    this.id = id;
  }
}

/**
 * The plant stored under this id does not meet the request's precondition (an HTTP If-Match): it holds
 * other content, or there is none. Nothing was changed.
 */
export class PlantPreconditionFailedError extends Error {
  override readonly name = 'PlantPreconditionFailedError';
  readonly id: bigint;

  constructor(id: bigint) {
    super(`the plant with id ${id} does not meet the precondition: it holds other content, or there is none`);
    this.id = id;
  }
}

/**
 * Storage could not be reached or did not answer in time; the operation may be retried.
 * Adapters throw it for outages, never for a problem with the input.
 */
export class StorageUnavailableError extends Error {
  override readonly name = 'StorageUnavailableError';
}
