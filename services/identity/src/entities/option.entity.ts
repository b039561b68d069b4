import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A stored option. Keys absent here have their default from the contracts' definitions. */
@Entity({ name: 'options' })
export class OptionEntity {
  @PrimaryColumn({ type: 'varchar', length: 128 })
  key: string;

  @Column({ type: 'text' })
  value: string;

  /** Grows with every write, so services applying events can ignore stale ones. */
  @Column({ type: 'integer' })
  version: number;
}
