import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The routing index: one row per (group, model) a channel serves, rebuilt in the same
 * transaction as every change of the channel. The primary key's leading (group, model) columns
 * are the lookup index; see the migration for the channel_id index.
 */
@Entity({ name: 'abilities' })
export class AbilityEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  group: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  model: string;

  @PrimaryColumn({ type: 'integer' })
  channel_id: number;

  @Column({ type: 'boolean', default: true })
  enabled: boolean;

  @Column({ type: 'integer', default: 0 })
  priority: number;

  @Column({ type: 'integer', default: 0 })
  weight: number;

  @Column({ type: 'varchar', length: 64, default: '' })
  tag: string;
}
